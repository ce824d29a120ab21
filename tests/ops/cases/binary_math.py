# Composed elementwise functions: atan2, hypot, logaddexp(2), xlogy, heaviside, copysign, signbit,
# addcmul, addcdiv, lerp, maximum/minimum. Float equality changes form at 11 (Equal); elementwise
# Max/Min take integers from 12.
import torch
from op_case import Fn, case


class Script(torch.nn.Module):
    def forward(self, x, y):
        return torch.atan2(x, y), torch.logaddexp(x, y), torch.lerp(x, y, 0.25), torch.maximum(x, y)


OPSETS = (9, 11, 13, 17)


def f(*shape):
    return torch.randn(*shape)


# Zeros and signed zeros where the functions have special cases.
special = torch.tensor([[0.0, -0.0, 1.5, -2.0], [0.0, 3.0, -0.0, float("inf")], [-1.0, 0.0, 2.0, -float("inf")]])
special_other = torch.tensor([[0.0, -1.0, 0.0, -0.0], [-3.0, 0.0, 0.0, 1.0], [0.0, 2.0, -0.0, 2.0]])

CASES = [
    case("atan2", Fn(lambda y, x: torch.atan2(y, x)), [f(3, 4), f(3, 4)], opsets=OPSETS),
    case("atan2_special", Fn(lambda y, x: torch.atan2(y, x)), [special, special_other], opsets=OPSETS),
    case("atan2_broadcast_int", Fn(lambda y, x: torch.atan2(y, x)), [f(2, 3, 4), torch.randint(-3, 4, (4,))],
         opsets=OPSETS),
    case("hypot", Fn(lambda a, b: torch.hypot(a, b)), [f(3, 4), f(4)]),
    case("logaddexp", Fn(lambda a, b: (torch.logaddexp(a, b), torch.logaddexp2(a, b))), [f(3, 4) * 10, f(3, 4)],
         opsets=OPSETS),
    case("logaddexp_inf", Fn(lambda a, b: (torch.logaddexp(a, b), torch.logaddexp2(a, b))), [special, special_other],
         opsets=OPSETS),
    case("xlogy", Fn(lambda x, y: (torch.xlogy(x, y.abs()), torch.xlogy(x, 2.0), torch.special.xlogy(2, y.abs()))),
         [special, special_other + 0.5], opsets=OPSETS),
    case("heaviside", Fn(lambda x, v: torch.heaviside(x, v)), [special, f(4)], opsets=OPSETS),
    case("heaviside_int", Fn(lambda x, v: torch.heaviside(x, v)), [torch.randint(-2, 3, (3, 5)), torch.tensor([7])],
         opsets=OPSETS),
    case("copysign", Fn(lambda a, b: (torch.copysign(a, b), torch.copysign(a, -1.0))), [f(3, 4), special],
         opsets=OPSETS),
    case("signbit", Fn(lambda x, i: (torch.signbit(x), torch.signbit(i), torch.signbit(i > 0))),
         [special, torch.randint(-3, 4, (3, 4))], opsets=OPSETS),
    case("addcmul_addcdiv", Fn(lambda s, a, b: (torch.addcmul(s, a, b), torch.addcmul(s, a, b, value=-0.5),
                                                torch.addcdiv(s, a, b.abs() + 1, value=2))),
         [f(3, 4), f(3, 4), f(4)]),
    case("lerp", Fn(lambda s, e, w: (torch.lerp(s, e, 0.3), torch.lerp(s, e, w))), [f(3, 4), f(3, 4), torch.rand(4)]),
    case("maximum_minimum", Fn(lambda a, b: (torch.maximum(a, b), torch.minimum(a, b))), [f(3, 4), f(4)],
         opsets=(9, 12, 17)),
    case("maximum_int", Fn(lambda a, b: (torch.maximum(a, b), torch.minimum(a, b))),
         [torch.randint(-5, 5, (3, 4)), torch.randint(-5, 5, (3, 4))], opsets=(9, 12, 17)),
    case("maximum_mixed", Fn(lambda a, b: torch.maximum(a, b)), [f(3, 4), torch.randint(-2, 2, (3, 4))],
         opsets=(9, 12, 17)),
    case("script", Script(), [f(3, 4), f(3, 4)], method="script"),
]
