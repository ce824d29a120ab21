# Elementwise math functions, incl. integer inputs (promoted to float) and special values.
import torch
from op_case import Fn, case


X = torch.randn(2, 3, 4)
POS = torch.rand(2, 3, 4) * 3 + 0.1
UNIT = torch.rand(2, 3, 4) * 1.8 - 0.9
I = torch.randint(-5, 6, (2, 3))
HALVES = torch.tensor([[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.4, 0.6, -0.6, 3.7, -3.7, 0.0]])

CASES = [
    case("exp_log", Fn(lambda a: (torch.exp(a), torch.log(a), torch.log2(a), torch.log10(a), torch.log1p(a),
                                  torch.expm1(a), torch.exp2(a))), [POS]),
    case("expm1_log1p_small", Fn(lambda a: (torch.expm1(a), torch.log1p(a))), [X * 0.1], rtol=1e-3),
    case("sqrt_rsqrt", Fn(lambda a: (torch.sqrt(a), torch.rsqrt(a), torch.reciprocal(a), torch.square(a))), [POS]),
    case("int_promote", Fn(lambda a: (torch.exp(a), torch.sqrt(a.abs()), torch.sigmoid(a), torch.reciprocal(a + 10),
                                      torch.sin(a), torch.tanh(a))), [I]),
    case("abs_neg_sign", Fn(lambda a: (torch.abs(a), torch.neg(a), torch.sign(a), torch.sgn(a), +a)), [X]),
    case("abs_neg_sign_int", Fn(lambda a: (torch.abs(a), -a, torch.sign(a), torch.square(a))), [I]),
    case("floor_ceil_trunc", Fn(lambda a: (torch.floor(a), torch.ceil(a), torch.trunc(a), torch.fix(a),
                                           torch.frac(a))), [X * 3]),
    case("floor_ceil_trunc_int", Fn(lambda a: (torch.floor(a), torch.ceil(a), torch.trunc(a))), [I]),
    case("round", Fn(lambda a: (torch.round(a), torch.round(a * 10, decimals=1))), [HALVES], opsets=(11, 13, 17)),
    case("round_int", Fn(lambda a: torch.round(a)), [I], opsets=(11, 13, 17)),
    case("trig", Fn(lambda a: (torch.sin(a), torch.cos(a), torch.tan(a), torch.atan(a), torch.sinh(a),
                               torch.cosh(a), torch.asinh(a))), [X]),
    case("inverse_trig", Fn(lambda a: (torch.asin(a), torch.acos(a), torch.atanh(a), torch.acosh(a + 2))), [UNIT]),
    case("erf", Fn(lambda a: (torch.erf(a), torch.erfc(a))), [X]),
    case("deg_rad", Fn(lambda a: (torch.deg2rad(a), torch.rad2deg(a))), [X]),
    case("logit", Fn(lambda a: (torch.logit(a), torch.logit(a, eps=0.1))), [torch.rand(2, 3) * 0.98 + 0.01]),
]
