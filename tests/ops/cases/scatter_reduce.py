# Tensor.scatter_reduce (sum, prod, mean, amax, amin; include_self True/False), index smaller
# than self, src larger than index, negative dim, integer dtypes (mean with floor division).
import torch
from op_case import Fn, case

REDS = ("sum", "prod", "mean", "amax", "amin")


class ScatterReduce(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x, i, s):
        return tuple(x.scatter_reduce(self.dim, i, s, r, include_self=inc) for r in REDS for inc in (True, False))


class Script(torch.nn.Module):
    def forward(self, x, i, s):
        return (x.scatter_reduce(1, i, s, "sum"), x.scatter_reduce(1, i, s, "amax", include_self=False),
                x.scatter_reduce(1, i, s, "mean"), x.scatter_reduce(1, i, s, "prod", include_self=False))


CASES = [
    case("dim0", ScatterReduce(0), [torch.randn(4, 3), torch.tensor([[0, 1, 3], [0, 0, 3], [2, 1, 3]]), torch.randn(3, 3)]),
    case("dim1_smaller_index", ScatterReduce(1), [torch.randn(3, 5, 2), torch.randint(0, 5, (2, 4, 2)),
                                                  torch.randn(3, 6, 2)]),
    case("negative_dim", ScatterReduce(-1), [torch.randn(2, 4), torch.tensor([[3, 0, 3, 3, 1], [2, 2, 2, 2, 2]]),
                                             torch.randn(2, 5)]),
    case("int", ScatterReduce(0), [torch.randint(-20, 20, (4, 3)), torch.tensor([[0, 1, 3], [0, 0, 3], [2, 1, 3]]),
                                   torch.randint(-20, 20, (3, 3))], opsets=(11, 13, 17)),
    case("script", Script(), [torch.randn(3, 4), torch.randint(0, 4, (3, 6)), torch.randn(3, 6)], method="script"),
]
