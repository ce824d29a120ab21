# cumprod (float, int, dtype argument, 0-d) and logcumsumexp (with -inf / +inf prefixes), over a
# static axis.
import torch
from op_case import Fn, case


class Cumprod(torch.nn.Module):
    def forward(self, x, i, s):
        return (torch.cumprod(x, 0), torch.cumprod(x, 1), torch.cumprod(x, -1), torch.cumprod(i, 1),
                torch.cumprod(i, 0, dtype=torch.float32), torch.cumprod(x, 2, dtype=torch.float64), torch.cumprod(s, 0),
                torch.cumprod(i > 0, 1))


class Logcumsumexp(torch.nn.Module):
    def forward(self, x, e):
        return torch.logcumsumexp(x, 0), torch.logcumsumexp(x, 2), torch.logcumsumexp(e, 1), torch.logcumsumexp(e, 0)


inf = float("inf")
CASES = [
    case("cumprod", Cumprod(), [torch.rand(3, 4, 5) + 0.5, torch.randint(-3, 4, (3, 5)), torch.tensor(2.5)]),
    case("cumprod_zero", Fn(lambda x: torch.cumprod(x, 1)), [torch.tensor([[1.0, 2.0, 0.0, 3.0], [-1.0, 0.5, 2.0, -2.0]])]),
    case("cumprod_script", Cumprod(), [torch.rand(2, 3, 4) + 0.5, torch.randint(-3, 4, (3, 4)), torch.tensor(-1.5)],
         method="script"),
    case("logcumsumexp", Logcumsumexp(), [torch.randn(3, 4, 5) * 10,
                                          torch.tensor([[-inf, -inf, 1.0, -inf], [2.0, inf, -inf, 0.0], [-inf, 3.0, 1.0, 2.0]])]),
    case("logcumsumexp_dynamic_batch", Fn(lambda x: torch.logcumsumexp(x, 1)), [torch.randn(3, 6)],
         cli_args=("--dynamic-axes", "x=0")),
]
