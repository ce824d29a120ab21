# det / linalg.det / logdet / slogdet / linalg.slogdet (up to 6x6) and inverse / linalg.inv (up to
# 4x4) of small static matrices, batched and not, by unrolled cofactor expansion.
import torch
from op_case import Fn, case


def well_conditioned(*shape):
    n = shape[-1]
    return torch.randn(*shape) + 2 * torch.eye(n)


class Dets(torch.nn.Module):
    def forward(self, x):
        s, l = torch.slogdet(x)
        s2, l2 = torch.linalg.slogdet(x)
        return torch.det(x), torch.linalg.det(x), torch.logdet(x), s, l, s2, l2


class Inverses(torch.nn.Module):
    def forward(self, x):
        return torch.inverse(x), torch.linalg.inv(x)


CASES = [
    case("det_1x1", Dets(), [torch.rand(3, 1, 1) + 0.5]),
    case("det_2x2", Dets(), [torch.randn(2, 2)]),
    case("det_3x3_batched", Dets(), [torch.randn(2, 4, 3, 3)]),
    case("det_4x4", Dets(), [well_conditioned(5, 4, 4)]),
    case("det_5x5", Dets(), [well_conditioned(2, 5, 5)]),
    case("det_6x6", Dets(), [well_conditioned(6, 6)]),
    case("det_script", Dets(), [torch.randn(3, 3, 3)], method="script"),
    case("det_dynamic_batch", Dets(), [torch.randn(3, 3, 3)], cli_args=("--dynamic-axes", "x=0")),
    case("inverse_1x1", Inverses(), [torch.rand(4, 1, 1) + 0.5]),
    case("inverse_2x2", Inverses(), [well_conditioned(2, 2)]),
    case("inverse_3x3_batched", Inverses(), [well_conditioned(2, 3, 3, 3)]),
    case("inverse_4x4", Inverses(), [well_conditioned(3, 4, 4)], rtol=1e-3),
    case("inverse_solve", Fn(lambda a, b: torch.inverse(a) @ b), [well_conditioned(3, 3), torch.randn(3, 2)]),
]
