# median (all elements / dim, NaN rows), nanmedian, kthvalue, searchsorted (left / right / side,
# sorter, N-D sequences, scalar values), at every opset where TopK's form changes.
import torch
from op_case import Fn, case

OPSETS = (9, 10, 11, 17)
DIM_OPSETS = (11, 13, 17)  # median/nanmedian with dim: PyTorch's (value, index) tie rule = stable TopK (11)
nan = float("nan")


def distinct(*shape):
    n = 1
    for s in shape:
        n *= s
    return (torch.randperm(n).float() - n / 2).reshape(*shape) / 4


class Median(torch.nn.Module):
    def forward(self, x):
        v0, i0 = torch.median(x, 0)
        v1, i1 = torch.median(x, -1, keepdim=True)
        return torch.median(x), v0, i0, v1, i1


class Quantiles(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        out = [self.fn(x, 0.3), self.fn(x, 0.5, dim=1), self.fn(x, torch.tensor([0.0, 0.25, 1.0]), dim=0, keepdim=True),
               self.fn(x, 0.75, keepdim=True), self.fn(x, torch.tensor(0.6), dim=-1)]
        for m in ("lower", "higher", "midpoint", "nearest"):
            out += [self.fn(x, 0.4, dim=1, interpolation=m), self.fn(x, torch.tensor([0.1, 0.5, 0.9]), interpolation=m)]
        return tuple(out)


class NanMedian(torch.nn.Module):
    # Row 2 is all NaN: its nanmedian index is an artifact of std::nth_element in PyTorch (every
    # entry compares equal), so that row's index is not compared.
    def forward(self, x):
        v, i = torch.nanmedian(x, 1)
        i = i[torch.tensor([0, 1, 3])]
        vk, ik = torch.nanmedian(x, 0, keepdim=True)
        return torch.nanmedian(x), v, i, vk, ik, torch.median(x), torch.median(x, 1)[0], torch.median(x, 1)[1]


class Kth(torch.nn.Module):
    def forward(self, x):
        a, ai = torch.kthvalue(x, 1)
        b, bi = torch.kthvalue(x, 3, 0, keepdim=True)
        c, ci = torch.kthvalue(x, 5, -1)
        return a, ai, b, bi, c, ci


class Search(torch.nn.Module):
    def forward(self, seq, v, nd, ndv, perm, sorter):
        return (torch.searchsorted(seq, v), torch.searchsorted(seq, v, right=True),
                torch.searchsorted(seq, v, side="right", out_int32=True), torch.searchsorted(nd, ndv),
                torch.searchsorted(nd, ndv, right=True), torch.searchsorted(seq[perm], v, sorter=sorter),
                torch.searchsorted(seq, 0.5))


with_nan = torch.tensor([[1.0, nan, 3.0, -2.0, 0.5], [4.0, 2.0, -1.0, 0.0, 7.0], [nan, nan, nan, nan, nan],
                         [2.5, nan, nan, 1.0, -3.0]])
CASES = [
    case("median_all", Fn(lambda x: (torch.median(x), torch.median(x[0]))), [distinct(5, 7)], opsets=OPSETS),
    case("median_all_even_nan", Fn(lambda x, y: (torch.median(x), torch.median(y), torch.nanmedian(y))),
         [distinct(4, 6), torch.tensor([1.0, nan, 3.0, 2.0])], opsets=OPSETS),
    case("median", Median(), [distinct(5, 7)], opsets=DIM_OPSETS),
    case("median_even", Median(), [distinct(4, 6)], opsets=DIM_OPSETS),
    case("median_ties", Median(), [torch.tensor([[2.0, 1.0, 2.0, 2.0], [3.0, 3.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])],
         opsets=DIM_OPSETS),
    case("median_int", Fn(lambda x: (torch.median(x), *torch.median(x, 1))), [torch.randperm(20).reshape(4, 5)],
         opsets=(11, 17)),
    case("median_0d", Fn(lambda x: (torch.median(x), *torch.median(x, 0))), [torch.tensor(2.5)], opsets=DIM_OPSETS),
    case("nanmedian", NanMedian(), [with_nan], opsets=DIM_OPSETS),
    case("quantile", Quantiles(torch.quantile), [torch.randn(5, 6)], opsets=OPSETS),
    case("quantile_nan", Fn(lambda x: (torch.quantile(x, 0.4, dim=1), torch.quantile(x, 0.5))), [with_nan], opsets=OPSETS),
    case("nanquantile", Quantiles(torch.nanquantile), [with_nan], opsets=(11, 13, 17)),
    case("nanquantile_opset9", Fn(lambda x: (torch.nanquantile(x, 0.4, dim=1), torch.nanquantile(x, 0.5),
                                             torch.nanquantile(x, 0.7, dim=0, interpolation="lower"))),
         [with_nan], opsets=(9, 10)),
    case("quantile_double", Fn(lambda x: torch.quantile(x, torch.tensor([0.2, 0.8], dtype=torch.float64), dim=1)),
         [torch.randn(3, 7, dtype=torch.float64)], opsets=OPSETS),
    case("kthvalue", Kth(), [distinct(6, 5)], opsets=OPSETS),
    # (the index of a NaN k-th value is quickselect's choice in PyTorch: only rows 0-1's indices compared)
    case("kthvalue_nan", Fn(lambda x: (torch.kthvalue(x, 2, 1)[0], torch.kthvalue(x, 2, 1)[1][:2], torch.kthvalue(x, 4, 1)[0],
                                       torch.kthvalue(x, 1, 0)[0])),
         [torch.tensor([[1.0, nan, 3.0, -2.0, 0.5], [4.0, 2.0, -1.0, 0.0, 7.0], [nan, 6.0, nan, nan, nan]])], opsets=OPSETS),
    case("kthvalue_script", Kth(), [distinct(6, 7)], opsets=OPSETS, method="script"),
    case("median_dynamic", Median(), [distinct(5, 7)], opsets=DIM_OPSETS, cli_args=("--dynamic-axes", "x=0,1")),
    case("searchsorted", Search(), [torch.tensor([-1.0, 0.0, 0.5, 1.0, 3.0]),
                                    torch.tensor([[-2.0, -1.0, 0.0, 0.7], [1.0, 3.0, 0.5, 5.0]]),
                                    torch.tensor([[0.0, 1.0, 2.0], [-5.0, 0.0, 5.0]]),
                                    torch.tensor([[1.0, -1.0, 2.5, 1.0], [0.0, 5.0, -6.0, 4.0]]),
                                    torch.tensor([3, 0, 4, 1, 2]), torch.tensor([1, 3, 4, 0, 2])], opsets=(9, 11, 17)),
    case("searchsorted_int", Fn(lambda s, v: (torch.searchsorted(s, v), torch.bucketize(v, s, right=True))),
         [torch.tensor([1, 3, 3, 5, 9]), torch.tensor([[0, 3, 4], [9, 10, 5]])]),
]
