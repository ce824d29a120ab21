# aten::index_put / index_put_ (x[idx] = v, x[:, idx] = v, x[mask] = v, x[i, j] = v, accumulate)
# -> ScatterND: from opset 11 (below: needs opset 11), accumulate=True from 16 (reduction='add').
# `y[:, i] = v` in Python writes into the view y[:] (aten::slice + index_put_), which the host
# refuses; index lists with None slots (full slices) are built explicitly in scripted modules.
# Also index_copy (Scatter < 11, ScatterElements), index_add (ScatterElements add, opset 16) and
# masked_scatter (ScatterND, opset 11).
from typing import List, Optional

import torch
from op_case import Fn, case

OPSETS = (11, 13, 16, 17)
ACC_OPSETS = (16, 17)


class PutRows(torch.nn.Module):
    def forward(self, x, i, v):
        y = x.clone()
        y[i] = v  # v broadcast over the rows
        return y


class PutCols(torch.nn.Module):
    def forward(self, x, i, v):
        idx: List[Optional[torch.Tensor]] = [None, i]
        return torch.index_put(x, idx, v)


class PutMask(torch.nn.Module):
    def forward(self, x):
        y = x.clone()
        y[x > 0] = 0.0
        return y


class PutMaskValues(torch.nn.Module):
    def forward(self, x, m, v):
        y = x.clone()
        y[m] = v  # one value per True of m, each a row of length x.shape[-1]
        return y


class PutMaskInner(torch.nn.Module):
    def forward(self, x, m):
        idx: List[Optional[torch.Tensor]] = [None, m]
        return torch.index_put(x, idx, torch.tensor(-1.0))


class PutPairs(torch.nn.Module):
    def forward(self, x, i, j, v):
        y = x.clone()
        y[i, j] = v
        return y


class PutPairsApart(torch.nn.Module):
    def forward(self, x, i, j, v):
        idx: List[Optional[torch.Tensor]] = [i, None, j]  # non-adjacent: values laid out as B + the rest
        return torch.index_put(x, idx, v)


class PutPairsMiddle(torch.nn.Module):
    def forward(self, x, i, j, v):
        idx: List[Optional[torch.Tensor]] = [None, i, j]  # adjacent after a full slice: values [N, B]
        return torch.index_put(x, idx, v)


class AccumulateCols(torch.nn.Module):
    def forward(self, x, i, v):
        idx: List[Optional[torch.Tensor]] = [None, i]
        return torch.index_put(x, idx, v, True)


class PutNegative(torch.nn.Module):
    def forward(self, x, i):
        y = x.clone()
        y[-1 - i] = 2.0
        return y


class IndexPutFn(torch.nn.Module):
    def forward(self, x, i, v):
        return x.index_put((i,), v), torch.index_put(x, (i, i), v[0, :2])


class Accumulate(torch.nn.Module):
    def forward(self, x, i, v):
        return x.clone().index_put_((i,), v, accumulate=True)


class AccumulatePairs(torch.nn.Module):
    def forward(self, x, i, j, v):
        return x.index_put((i, j), v, accumulate=True)


class PutInt(torch.nn.Module):
    def forward(self, x, i):
        y = x.clone()
        y[i] = 9
        return y


class PutScript(torch.nn.Module):
    def forward(self, x, i, v):
        y = x.clone()
        y[i] = v
        return y * 2.0


class IndexCopyAdd(torch.nn.Module):
    def __init__(self, add):
        super().__init__()
        self.add = add

    def forward(self, x, i, src):
        if self.add:
            return x.index_add(1, i, src), torch.index_add(x, 1, i, src, alpha=-2.0)
        return x.index_copy(1, i, src), x.clone().index_copy_(1, i, src * 2)


def x45():
    return torch.randn(4, 5)


rows = torch.tensor([0, 2])
dup = torch.tensor([1, 3, 1, 0])

CASES = [
    case("rows", PutRows(), [x45(), rows, torch.randn(5)], opsets=OPSETS),
    case("rows_full_values", PutRows(), [x45(), rows, torch.randn(2, 5)], opsets=OPSETS),
    case("cols", PutCols(), [x45(), torch.tensor([4, 1]), torch.randn(4, 2)], opsets=OPSETS, method="script"),
    case("cols_row_values", PutCols(), [x45(), torch.tensor([4, 1]), torch.randn(2)], opsets=OPSETS, method="script"),
    case("cols_scalar_values", PutCols(), [x45(), torch.tensor([3]), torch.tensor(1.5)], opsets=OPSETS,
         method="script"),
    case("middle_axis", PutCols(), [torch.randn(2, 4, 5), torch.tensor([0, 3]), torch.randn(2, 2, 5)], opsets=OPSETS,
         method="script"),
    case("mask_scalar", PutMask(), [x45()], opsets=OPSETS),
    case("mask_rows", PutMaskValues(), [x45(), torch.tensor([True, False, True, True]), torch.randn(3, 5)],
         opsets=OPSETS),
    case("mask_2d", PutMaskValues(), [torch.randn(3, 4, 2), torch.rand(3, 4) > 0.5, torch.tensor(4.0)],
         opsets=OPSETS),
    case("mask_inner", PutMaskInner(), [torch.randn(2, 3, 4), torch.rand(3, 4) > 0.3], opsets=OPSETS, method="script"),
    case("pairs", PutPairs(), [x45(), torch.tensor([0, 3, 2]), torch.tensor([4, 0, 1]), torch.randn(3)],
         opsets=OPSETS),
    case("pairs_broadcast", PutPairs(), [x45(), torch.tensor([[0], [3]]), torch.tensor([1, 2, 4]), torch.randn(2, 3)],
         opsets=OPSETS),
    case("pairs_apart", PutPairsApart(), [torch.randn(4, 3, 5), torch.tensor([1, 2]), torch.tensor([0, 4]),
                                          torch.randn(2, 3)], opsets=OPSETS, method="script"),
    case("pairs_middle", PutPairsMiddle(), [torch.randn(2, 4, 5), torch.tensor([1, 2, 3]), torch.tensor([0, 4, 2]),
                                            torch.randn(2, 3)], opsets=OPSETS, method="script"),
    case("negative", PutNegative(), [x45(), torch.tensor([0, 2])], opsets=OPSETS),
    case("functional", IndexPutFn(), [x45(), torch.tensor([1, 3]), torch.randn(2, 5)], opsets=OPSETS),
    case("int_tensor", PutInt(), [torch.randint(-5, 5, (4, 3)), torch.tensor([1])], opsets=OPSETS),
    case("script", PutScript(), [x45(), torch.tensor([3, 0]), torch.randn(5)], opsets=OPSETS, method="script"),
    case("mask_rows_dynamic", PutMaskValues(), [x45(), torch.tensor([True, False, True, True]), torch.randn(3, 5)],
         opsets=OPSETS, cli_args=("--dynamic-axes", "x=0,1", "--dynamic-axes", "m=0", "--dynamic-axes", "v=0,1")),
    case("middle_axis_dynamic", PutCols(), [torch.randn(2, 4, 5), torch.tensor([0, 3]), torch.randn(2, 2, 5)],
         opsets=OPSETS, method="script",
         cli_args=("--dynamic-axes", "x=0,1,2", "--dynamic-axes", "i=0", "--dynamic-axes", "v=0,1,2")),
    case("index_copy", IndexCopyAdd(False), [x45(), torch.tensor([4, 0, 2]), torch.randn(4, 3)],
         opsets=(9, 11, 13, 17)),
    case("index_add", IndexCopyAdd(True), [x45(), torch.tensor([4, 0, 4, 1]), torch.randn(4, 4)], opsets=ACC_OPSETS),
    case("masked_scatter", Fn(lambda x, m, s: (x.masked_scatter(m, s), x.masked_scatter(x > 0, s * 2))),
         [x45(), torch.rand(5) > 0.5, torch.randn(5, 5)], opsets=OPSETS),
    case("accumulate", Accumulate(), [x45(), dup, torch.randn(4, 5)], opsets=ACC_OPSETS),
    case("accumulate_pairs", AccumulatePairs(), [x45(), dup, torch.tensor([0, 2, 0, 4]), torch.randn(4)],
         opsets=ACC_OPSETS),
    case("accumulate_cols", AccumulateCols(), [x45(), torch.tensor([1, 1, 4]), torch.randn(4, 3)],
         opsets=ACC_OPSETS, method="script"),
]
