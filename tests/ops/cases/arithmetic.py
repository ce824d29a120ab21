# Binary arithmetic with broadcasting, Python scalars and PyTorch's type promotion: add/sub (alpha),
# rsub, mul, div (rounding modes), floor_divide, remainder, fmod, pow (all three forms).
import torch
from op_case import Fn, case


# Integer divisors are constants: the exporter runs the model on zero-filled integer inputs.
class ScriptArith(torch.nn.Module):
    def forward(self, x, y, i):
        return x + 2 * y - 1.5, 3 - i, i // 2, x ** 2, i % 3, torch.pow(2.0, x), x % 0.7, torch.fmod(i, 4)


class ScriptNumbers(torch.nn.Module):
    def forward(self, i):
        return i - 1.5, i / 2, i * 2, (i > 0) + 1, i.int() * 0.5


def f(*shape):
    return torch.randn(*shape)


def i64(*shape, lo=-9, hi=10):
    return torch.randint(lo, hi, shape)


def nz(*shape):  # int64 without zeros (divisors)
    t = torch.randint(1, 6, shape)
    return t * (torch.randint(0, 2, shape) * 2 - 1)


X, Y = f(2, 3, 4), f(3, 1)
I, J = i64(2, 3, 4), nz(3, 4)
POS = torch.rand(2, 3) + 0.5

CASES = [
    case("add_broadcast", Fn(lambda a, b: a + b), [X, Y]),
    case("add_alpha", Fn(lambda a, b: torch.add(a, b, alpha=2.5)), [X, Y]),
    case("sub_alpha", Fn(lambda a, b: torch.sub(a, b, alpha=3)), [X, Y]),
    case("sub_scalar", Fn(lambda a: a - 1.25), [X]),
    case("rsub_scalar", Fn(lambda a: 2 - a), [X]),
    case("rsub_int_float", Fn(lambda a: 2.5 - a), [I]),
    case("mul_scalar", Fn(lambda a: a * 3), [X]),
    case("mul_bool", Fn(lambda a, b: a * b), [X > 0, Y > 0]),
    case("add_bool", Fn(lambda a, b: a + b), [X > 0, Y > 0]),
    case("div_tensor", Fn(lambda a, b: a / b), [X, Y]),
    case("div_int_true", Fn(lambda a: a / J), [I]),
    case("div_floor_int", Fn(lambda a: torch.div(a, J, rounding_mode="floor")), [I]),
    case("div_trunc_int", Fn(lambda a: torch.div(a, J, rounding_mode="trunc")), [I]),
    case("div_floor_float", Fn(lambda a, b: torch.div(a, b, rounding_mode="floor")), [X * 4, Y]),
    case("div_trunc_float", Fn(lambda a, b: torch.div(a, b, rounding_mode="trunc")), [X * 4, Y]),
    case("floor_divide_int", Fn(lambda a: torch.floor_divide(a, J)), [I]),
    case("floor_divide_float", Fn(lambda a, b: a // b), [X * 4, Y]),
    # Python numbers are "wrapped numbers": they do not raise a tensor's dtype within its category
    # (traced, they are 0-d double/int64 constants the core turns back into numbers).
    case("int_plus_float_scalar", Fn(lambda a: a + 1.5), [I]),
    case("int_div_int_scalar", Fn(lambda a: a / 2), [I]),
    case("int_mul_float_scalar", Fn(lambda a: a * 0.5 - 2.5), [I.int()]),
    case("int_float_scalars_script", ScriptNumbers(), [I], method="script"),
    case("half_plus_float_scalar", Fn(lambda a: (a.half() + 1.5).float()), [X], rtol=1e-3),
    case("bool_plus_int_scalar", Fn(lambda a: (a > 0) + 2), [X]),
    case("bool_mul_float_scalar", Fn(lambda a: (a > 0) * 1.5), [X]),
    case("div_mixed_dtypes", Fn(lambda a, b: a.div(b)), [I.int(), Y.double()]),
    case("div_int_by_float_tensor", Fn(lambda a, b: a.div(b)), [I, Y]),
    case("list_items_as_numbers", Fn(lambda a: torch.tensor(a.tolist()[0]) + a.tolist()[1]), [torch.randn(2)]),
    case("int32_plus_0d_int64", Fn(lambda a, b: a + b), [I.int(), torch.tensor(7)]),
    case("int8_plus_0d_double", Fn(lambda a, b: a * b), [I.to(torch.int8), torch.tensor(1.5, dtype=torch.float64)],
         opsets=(9, 14, 17)),
    case("int32_plus_int64", Fn(lambda a, b: a + b), [I.int(), J]),
    case("float_plus_double", Fn(lambda a, b: a * b), [X, Y.double()]),
    case("float_plus_0d_double", Fn(lambda a, b: a + b), [X, torch.tensor(2.5, dtype=torch.float64)]),
    case("int_plus_0d_float", Fn(lambda a, b: a + b), [I, torch.tensor(0.5)]),
    case("uint8_plus_int", Fn(lambda a: a + 100), [torch.randint(0, 200, (2, 3), dtype=torch.uint8)], opsets=(9, 13, 14, 17)),
    case("remainder_float", Fn(lambda a, b: torch.remainder(a, b)), [X * 4, Y], opsets=(9, 10, 13, 17)),
    case("remainder_int", Fn(lambda a: a % J), [I], opsets=(9, 10, 13, 17)),
    case("remainder_scalar", Fn(lambda a: a % -1.5), [X * 4], opsets=(9, 10, 13, 17)),
    case("remainder_int_scalar", Fn(lambda a: a % 4), [I], opsets=(9, 10, 13, 17)),
    case("fmod_float", Fn(lambda a, b: torch.fmod(a, b)), [X * 4, Y], opsets=(9, 10, 13, 17)),
    case("fmod_int", Fn(lambda a: torch.fmod(a, J)), [I], opsets=(9, 10, 13, 17)),
    case("pow_tensor_tensor", Fn(lambda a, b: a ** b), [POS, X[0, :, :1].t()]),
    case("pow_tensor_scalar", Fn(lambda a: a ** 3 + a ** 0.5 + a ** 2), [POS]),
    case("pow_scalar_tensor", Fn(lambda a: 2 ** a), [X]),
    case("pow_int_int", Fn(lambda a: a ** 3), [I], opsets=(9, 12, 13, 17)),
    case("pow_int_tensor", Fn(lambda a, b: a ** b), [I, torch.randint(0, 4, (3, 4))], opsets=(9, 12, 13, 17)),
    case("pow_int_float", Fn(lambda a: a ** 0.5), [torch.randint(0, 9, (2, 3))]),
    case("float_power", Fn(lambda a, b: torch.float_power(a, b)), [POS, X[0, :, :1].t()]),
    case("neg_abs_int", Fn(lambda a: -a), [I]),
    case("arith_script", ScriptArith(), [X, Y, I], method="script", opsets=(9, 10, 13, 17)),
]
