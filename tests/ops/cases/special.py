# Special functions: sinc, i0, erfinv, digamma, polygamma (n = 0, 1, 2, 3), lgamma, with their
# torch.special aliases; edge values (0, +-1, poles, +-inf, NaN) included.
import torch
from op_case import Fn, case

inf, nan = float("inf"), float("nan")


def spread(*shape, scale=4.0):
    return torch.randn(*shape) * scale


edges = torch.tensor([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 10.0, inf, -inf, nan, 1e-6, -3.75, 7.9, 8.1, 40.0])
CASES = [
    case("sinc", Fn(lambda x, i: (torch.sinc(x), torch.special.sinc(x), torch.sinc(i))),
         [torch.cat([spread(20), edges]), torch.arange(-3, 4)]),
    case("i0", Fn(lambda x: (torch.i0(x), torch.special.i0(x))), [torch.cat([spread(30, scale=10.0), edges])]),
    case("i0_double", Fn(lambda x: torch.i0(x)), [torch.cat([spread(30, scale=10.0), edges]).double()]),
    case("erfinv", Fn(lambda y: (torch.erfinv(y), torch.special.erfinv(y))),
         [torch.cat([torch.rand(40) * 2 - 1, torch.tensor([0.0, 0.69, 0.71, -0.7, 0.999, -0.9999, 1.0, -1.0, 1.5, -2.0, nan])])]),
    case("digamma", Fn(lambda x: (torch.digamma(x), torch.special.digamma(x), torch.special.psi(x))),
         [torch.cat([spread(30), edges, torch.tensor([1e-3, 9.999, 12.5, -7.3, 1e5])])]),
    case("digamma_double", Fn(lambda x: torch.digamma(x)), [torch.cat([spread(30), edges]).double()]),
    case("polygamma", Fn(lambda x: (torch.polygamma(0, x), torch.polygamma(1, x), torch.polygamma(2, x),
                                    torch.polygamma(3, x), torch.special.polygamma(1, x))),
         [torch.cat([spread(30), torch.tensor([0.5, 1.0, 2.0, 0.25, -0.5, -1.5, -2.25, 3.0, 12.0, 50.0, -3.0, 0.0])])],
         rtol=1e-3),
    case("lgamma", Fn(lambda x: (torch.lgamma(x), torch.special.gammaln(x))),
         [torch.cat([spread(30, scale=8.0), edges, torch.tensor([1e-4, 1e10, -1e-4, -4.5, -10.25, 170.0, 3.0])])]),
    case("lgamma_double", Fn(lambda x: torch.lgamma(x)), [torch.cat([spread(30, scale=8.0), edges]).double()]),
]
