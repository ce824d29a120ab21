# Comparisons, logical and bitwise ops, where, isnan/isinf/isfinite, nan_to_num, clamp/clip.
import torch
from op_case import Fn, case


class ScriptCmp(torch.nn.Module):
    def forward(self, x, y, b):
        return x < y, x >= 0.5, ~b, b & (x > y), torch.where(b, x, 0.0), torch.clamp(x, -0.5, 0.5)



class TensorEqual(torch.nn.Module):
    # torch.equal: sizes known at export time (equal, unequal values; another shape; NaN) and y's
    # size known only at run time (--dynamic-axes y=0: compared first, elements only when they agree).
    def forward(self, x, y):
        z = x.clone()
        n = x.clone()
        n[0, 0] = float("nan")
        return (torch.tensor(torch.equal(x, z)), torch.tensor(torch.equal(x, x + 1)), torch.tensor(torch.equal(x, x[:1])),
                torch.tensor(torch.equal(n, n)), torch.tensor(torch.equal(x, y)), torch.tensor(torch.equal(y > 0, y > 0)),
                torch.tensor(torch.equal(x, x.long())), torch.tensor(torch.equal(x * 1.5, x.long())),
                torch.tensor(torch.equal(y > 0, (y > 0).int())))

def rounded(*shape):  # halves, so that equal values occur
    return torch.round(torch.randn(*shape) * 2) / 2


X, Y = rounded(2, 3, 4), rounded(3, 1)
I, J = torch.randint(-3, 4, (2, 3, 4)), torch.randint(-3, 4, (3, 4))
B, C = torch.rand(2, 3, 4) > 0.5, torch.rand(3, 4) > 0.5
SPECIAL = torch.tensor([[0.0, float("nan"), float("inf"), -float("inf"), 1.5, -2.0]])
ALL = (9, 11, 12, 13, 17)

CASES = [
    case("cmp_float", Fn(lambda a, b: (a == b, a != b, a < b, a <= b, a > b, a >= b)), [X, Y], opsets=ALL),
    case("cmp_nan", Fn(lambda a, b: (a == b, a != b, a <= b, a >= b)), [SPECIAL, SPECIAL.flip(1)], opsets=ALL),
    case("cmp_scalar", Fn(lambda a: (a == 0.5, a != 0, a < 1, a <= 0.5, a > -0.5, a >= 0)), [X], opsets=ALL),
    case("cmp_int", Fn(lambda a, b: (a == b, a < b, a <= b, a >= b)), [I, J], opsets=ALL),
    case("cmp_int_float_scalar", Fn(lambda a: (a < 1.5, a == 2.0)), [I], opsets=ALL),
    case("cmp_int32_int64", Fn(lambda a, b: a < b), [I.int(), J], opsets=ALL),
    case("cmp_float_double", Fn(lambda a, b: a <= b), [X, Y.double()], opsets=ALL),
    case("cmp_bool", Fn(lambda a, b: (a == b, a < b)), [B, C], opsets=ALL),
    case("cmp_uint8", Fn(lambda a: a > 100), [torch.randint(0, 255, (2, 3), dtype=torch.uint8)], opsets=ALL),
    case("logical_bool", Fn(lambda a, b: (torch.logical_and(a, b), torch.logical_or(a, b), torch.logical_xor(a, b),
                                          torch.logical_not(a))), [B, C]),
    case("logical_float", Fn(lambda a, b: (torch.logical_and(a, b), torch.logical_or(a, b), torch.logical_not(a))),
         [X, Y]),
    case("bitwise_bool", Fn(lambda a, b: (a & b, a | b, a ^ b, ~a, torch.bitwise_and(a, b), torch.bitwise_or(a, b))),
         [B, C]),
    case("bitwise_not_int", Fn(lambda a: (~a, ~a.int(), torch.bitwise_not(a.to(torch.uint8) + 3))), [I]),
    case("where", Fn(lambda c, a, b: torch.where(c, a, b)), [B, X, Y]),
    case("where_scalar", Fn(lambda c, a: (torch.where(c, a, 0.0), torch.where(c, 1.0, a),
                                          torch.where(c, 2, -1))), [B, X]),
    case("where_promote", Fn(lambda c, a, b: torch.where(c, a, b)), [C, I, Y]),
    case("isnan_isinf", Fn(lambda a: (torch.isnan(a), torch.isinf(a), torch.isfinite(a), torch.isposinf(a),
                                      torch.isneginf(a))), [SPECIAL]),
    case("isnan_int", Fn(lambda a: (torch.isnan(a), torch.isinf(a), torch.isfinite(a))), [I]),
    case("nan_to_num", Fn(lambda a: (torch.nan_to_num(a), torch.nan_to_num(a, nan=1.0, posinf=9.0, neginf=-9.0))),
         [SPECIAL]),
    case("clamp_scalar", Fn(lambda a: (torch.clamp(a, -0.5, 0.7), torch.clamp(a, min=0.2), torch.clamp(a, max=-0.1),
                                       torch.clip(a, -1, 1), a.clamp_min(0.1), a.clamp_max(0.3))),
         [X], opsets=(9, 11, 12, 13, 17)),
    case("clamp_int", Fn(lambda a: (torch.clamp(a, -1, 2), a.clamp_min(0), torch.clamp(a * 1000000000000, max=3000000000001))),
         [I], opsets=(9, 11, 12, 13, 17)),
    case("clamp_int_float_bounds", Fn(lambda a: torch.clamp(a, -0.5, 1.5)), [I], opsets=(9, 11, 12, 13, 17)),
    case("clamp_tensor", Fn(lambda a, lo, hi: (torch.clamp(a, lo, hi), torch.clamp(a, min=lo), a.clamp_max(hi))),
         [X, Y - 0.5, Y + 0.5], opsets=(9, 11, 12, 13, 17)),
    case("clamp_tensor_int", Fn(lambda a, lo: torch.clamp(a, min=lo)), [I, J], opsets=(9, 11, 12, 13, 17)),
    case("clamp_min_gt_max", Fn(lambda a: torch.clamp(a, 0.5, -0.5)), [X], opsets=(9, 11, 12, 13, 17)),
    case("cmp_script", ScriptCmp(), [X, Y, B], method="script", opsets=ALL),
    case("tensor_equal_script", TensorEqual(), [torch.ones(2, 3), torch.ones(2, 3)], method="script", opsets=(9, 11, 17),
         cli_args=("--dynamic-axes", "y=0"),
         more_inputs=[[torch.ones(2, 3), torch.ones(3, 3)], [torch.ones(2, 3), torch.full((2, 3), 2.0)]]),
]


class WhereNumbers(torch.nn.Module):
    def forward(self, x, i):
        return torch.where(x > 0, x, 0.5), torch.where(x > 0, 1.0, x), torch.where(i > 0, i, 2), torch.where(i > 0, 1.5, i)


# where with Python numbers (result_type: a number does not raise the tensor's dtype within its
# category; an int tensor with a float number gives float32), and where(condition) = nonzero rows.
CASES += [
    case("where_numbers", WhereNumbers(), [torch.randn(2, 3), torch.randint(-3, 3, (2, 3))]),
    case("where_numbers_script", WhereNumbers(), [torch.randn(2, 3), torch.randint(-3, 3, (2, 3))], method="script"),
    case("where_condition_only", Fn(lambda x: torch.where(x > 0)), [torch.randn(3, 4)]),
    case("where_condition_only_used", Fn(lambda x: torch.where(x > 0)[1] * 2), [torch.randn(3, 4)]),
]
