# Lists of tensors at the top level: ops that return a list (split, chunk, tensor_split, unbind,
# broadcast_tensors) returned whole from a scripted forward (one ONNX output per item, each typed from
# what the example run saw of that item) or used whole (len, a loop over it, sum, cat), with and
# without dynamic axes; a list indexed or set at a run-time position (ONNX sequences, opset 11+);
# split/chunk/unbind into equal parts of a dynamic axis (SplitToSequence, opset 11+) used by index,
# len, loops, cat/stack, and unpacked (traced); tensor_split of a dynamic axis into N sections or at
# indices (always N parts: Slices with run-time bounds, opset 10+) used by index, unpacked, cat'ed,
# returned.
from typing import List

import torch
from op_case import case

torch.manual_seed(0)


class SplitReturn(torch.nn.Module):
    def forward(self, x):
        return torch.split(x, 2, dim=1)


class SplitSizesReturn(torch.nn.Module):
    def forward(self, x):
        return x.split([2, 1, 2], 1), x.split([3, 2], 1)[0]


class ChunkReturn(torch.nn.Module):
    def forward(self, x):
        return torch.chunk(x, 3, dim=1)


class TensorSplitReturn(torch.nn.Module):
    def forward(self, x):
        return torch.tensor_split(x, [1, 3], dim=1), torch.tensor_split(x, 3, dim=1)


class BroadcastReturn(torch.nn.Module):
    def forward(self, x, y):
        return torch.broadcast_tensors(x, y)


class BroadcastDtypes(torch.nn.Module):
    """Items of different dtypes: each output keeps its own."""

    def forward(self, x, n):
        return torch.broadcast_tensors(x, n)


class UnbindReturn(torch.nn.Module):
    def forward(self, x):
        return torch.unbind(x, 1)


class ListUsedWhole(torch.nn.Module):
    """len() of a split, a loop over its parts, cat of them reversed."""

    def forward(self, x):
        parts = torch.split(x, 2, dim=1)
        acc = torch.zeros_like(parts[0][:, :1])
        for p in parts:
            acc = acc + p.sum(1, keepdim=True)
        rev: List[torch.Tensor] = []
        for i in range(len(parts)):
            rev.append(parts[len(parts) - 1 - i])
        return acc * float(len(parts)), torch.cat(rev, 1)


class LenUnbind(torch.nn.Module):
    def forward(self, x):
        parts = torch.unbind(x, 0)
        return x * len(parts)


class LoopUnbind(torch.nn.Module):
    def forward(self, x):
        acc = torch.zeros_like(x[0])
        for p in torch.unbind(x, 0):
            acc = acc * 0.5 + p
        return acc


class IndexRuntime(torch.nn.Module):
    """A list of tensors indexed at a position read from a tensor."""

    def forward(self, x, i):
        parts = torch.unbind(x, 0)
        return parts[int(i)] * 2


class IndexCounter(torch.nn.Module):
    """A loop over a split's parts by position: the counter indexes the list."""

    def forward(self, x):
        parts = torch.split(x, 1, dim=0)
        acc = torch.zeros_like(parts[0])
        for i in range(len(parts)):
            acc = acc * 0.5 + parts[i] * float(i)
        return acc


class IntListRuntime(torch.nn.Module):
    """A list of ints (the sizes) indexed at a run-time position."""

    def forward(self, x, i):
        sizes = x.size()
        return torch.full([2], sizes[int(i)])


class SetRuntime(torch.nn.Module):
    """A list set at a position read from a tensor, then stacked."""

    def forward(self, x, i):
        parts: List[torch.Tensor] = [x[0], x[1], x[2]]
        parts[int(i)] = x[0] * 10
        return torch.stack(parts, 0)


class SumInts(torch.nn.Module):
    """Python's sum over a list of ints (the parts' lengths)."""

    def forward(self, x):
        lengths = [p.size(1) for p in torch.split(x, 2, dim=1)]
        return x * sum(lengths)


class SumSizes(torch.nn.Module):
    """Python's sum over a list of ints the exporter knows (the sizes)."""

    def forward(self, x):
        return x * sum(x.size())


class SumTensors(torch.nn.Module):
    def forward(self, x):
        return sum(torch.unbind(x, 0))


class ToList(torch.nn.Module):
    """tolist() of a 1-D int tensor, its items used as ints."""

    def forward(self, x, n):
        sizes: List[int] = n.tolist()
        return x * sizes[0] + sizes[2]


class EarlyReturn(torch.nn.Module):
    """An early return: the value set on the other path is a prim::Uninitialized placeholder there."""

    def forward(self, x):
        if bool(x.sum() > 0):
            return x + 1
        y = x * 2
        return y - 1


class RaiseOnOnePath(torch.nn.Module):
    """y and z set on every path that does not raise (prim::Uninitialized on the raising one)."""

    def forward(self, x):
        if bool(x.sum() > 0):
            y = x + 1
            z = x * 2
        elif bool(x.sum() > -1000.0):
            y = x - 1
            z = x * 3
        else:
            raise RuntimeError("out of range")
        return y + z


class SplitDynUsed(torch.nn.Module):
    """Equal parts of a dynamic axis (an ONNX sequence from 11): indexed by constants, len(), a loop
    over the parts, cat of them."""

    def forward(self, x):
        parts = x.split(2, dim=1)
        acc = torch.zeros_like(x[:, :1])
        for p in parts:
            acc = acc + p.sum(1, keepdim=True)
        return parts[0] * float(len(parts)), parts[-1], acc, torch.cat(parts, 1) - x


class ChunkDynUsed(torch.nn.Module):
    """chunk of a dynamic axis: ceil(D / 3) per part, so fewer than 3 parts for some D (4 gives 2);
    a list built from it in a loop (a sequence carried by Loop: 13+)."""

    def forward(self, x):
        parts = torch.chunk(x, 3, 1)
        n = len(parts)
        rev: List[torch.Tensor] = []
        for i in range(n):
            rev.insert(0, parts[i])
        return torch.cat(rev, 1) * float(n), parts[0], parts[n - 1]


class UnbindDynUsed(torch.nn.Module):
    def forward(self, x):
        parts = torch.unbind(x, 1)
        total = torch.zeros_like(parts[0])
        for i, p in enumerate(parts):
            total = total + p * float(i)
        return torch.stack(parts, 0), total * len(parts)


class SplitDynUnpack(torch.nn.Module):
    """Traced: the parts unpacked by position (as many as the example had)."""

    def forward(self, x):
        a, b = x.split(3, dim=1)
        return a * 2, b.sum(1)


class SplitDynReturn(torch.nn.Module):
    """A returned list whose length follows a dynamic size: one sequence output."""

    def forward(self, x):
        return x.split(2, dim=1)


class TensorSplitDynUsed(torch.nn.Module):
    """tensor_split of a dynamic axis: N sections (the first L % N one longer), and at indices."""

    def forward(self, x):
        a, b, c = torch.tensor_split(x, 3, dim=1)
        parts = torch.tensor_split(x, [1, -2], dim=1)
        rows = torch.tensor_split(x, 2)
        return a * 2, c, torch.cat([c, b, a], 1), parts[1], torch.cat(parts, 1) * 2, rows[1] + 1


class TensorSplitDynReturn(torch.nn.Module):
    """The sections returned whole: always 4 outputs (some empty when the axis is shorter than 4)."""

    def forward(self, x):
        return torch.tensor_split(x, 4, dim=-1)


class TensorSplitDynTensor(torch.nn.Module):
    """Traced: the sections given as a 0-d tensor, the indices as a 1-D tensor."""

    def forward(self, x):
        return (*torch.tensor_split(x, torch.tensor(3), 1), *torch.tensor_split(x, torch.tensor([2, 3]), 0))


def pos(*shape):
    return torch.rand(*shape) + 0.5


X = torch.randn(3, 5)
DYN0 = ("--dynamic-axes", "x=0")
DYN01 = ("--dynamic-axes", "x=0,1")
CASES = [
    case("split_return", SplitReturn(), [X], opsets=(9, 11, 13, 18), method="script"),
    case("split_return_dyn0", SplitReturn(), [X], opsets=(11, 13, 18), method="script", cli_args=DYN0,
         more_inputs=[[torch.randn(6, 5)]]),
    case("split_return_trace", SplitReturn(), [X], opsets=(9, 13)),
    case("split_sizes_return", SplitSizesReturn(), [X], opsets=(9, 11, 13, 17), method="script"),
    case("split_sizes_return_dyn0", SplitSizesReturn(), [X], opsets=(11, 13), method="script", cli_args=DYN0,
         more_inputs=[[torch.randn(2, 5)]]),
    case("chunk_return", ChunkReturn(), [torch.randn(2, 7)], opsets=(9, 11, 13, 18), method="script"),
    case("chunk_return_dyn0", ChunkReturn(), [torch.randn(2, 7)], opsets=(11, 13, 18), method="script",
         cli_args=DYN0, more_inputs=[[torch.randn(4, 7)]]),
    case("tensor_split_return", TensorSplitReturn(), [torch.randn(4, 5)], opsets=(9, 11, 13), method="script"),
    case("tensor_split_return_dyn0", TensorSplitReturn(), [torch.randn(4, 5)], opsets=(11, 13), method="script",
         cli_args=DYN0, more_inputs=[[torch.randn(6, 5)]]),
    case("broadcast_return", BroadcastReturn(), [torch.randn(3, 1), torch.randn(1, 4)], opsets=(9, 13),
         method="script"),
    case("broadcast_return_dyn", BroadcastReturn(), [torch.randn(3, 1), torch.randn(1, 4)], opsets=(11, 13),
         method="script", cli_args=("--dynamic-axes", "x=0", "--dynamic-axes", "y=1"),
         more_inputs=[[torch.randn(2, 1), torch.randn(1, 6)]]),
    case("broadcast_dtypes", BroadcastDtypes(), [torch.randn(3, 1), torch.tensor([[1, 2, 3, 4]])], opsets=(9, 13),
         method="script"),
    case("unbind_return", UnbindReturn(), [X], opsets=(9, 11, 13), method="script"),
    case("unbind_return_dyn0", UnbindReturn(), [X], opsets=(11, 13), method="script", cli_args=DYN0,
         more_inputs=[[torch.randn(7, 5)]]),
    case("list_used_whole", ListUsedWhole(), [X], opsets=(13, 17), method="script"),
    case("len_unbind", LenUnbind(), [X], opsets=(9, 13), method="script"),
    case("loop_unbind", LoopUnbind(), [X], opsets=(11, 13), method="script"),
    case("loop_unbind_trace", LoopUnbind(), [X], opsets=(9, 13)),
    case("index_runtime", IndexRuntime(), [X, torch.tensor(1)], opsets=(11, 13, 17), method="script",
         more_inputs=[[X, torch.tensor(2)], [X, torch.tensor(-3)]]),
    case("index_counter", IndexCounter(), [X], opsets=(11, 13, 17), method="script"),
    case("int_list_runtime", IntListRuntime(), [X, torch.tensor(1)], opsets=(11, 13), method="script",
         more_inputs=[[X, torch.tensor(0)]]),
    case("set_runtime", SetRuntime(), [X, torch.tensor(1)], opsets=(11, 13, 17), method="script",
         more_inputs=[[X, torch.tensor(2)], [X, torch.tensor(-1)]]),
    case("sum_ints", SumInts(), [X], opsets=(13, 17), method="script"),
    case("sum_ints_dyn0", SumInts(), [X], opsets=(13,), method="script", cli_args=DYN0,
         more_inputs=[[torch.randn(5, 5)]]),
    case("sum_sizes", SumSizes(), [X], opsets=(9, 13), method="script"),
    case("sum_tensors_trace", SumTensors(), [X], opsets=(9, 13)),
    case("tolist", ToList(), [torch.randn(6), torch.tensor([2, 3, 4])], opsets=(9, 13), method="script"),
    case("early_return", EarlyReturn(), [pos(2, 3)], opsets=(9, 11, 13), method="script", more_inputs=[[-pos(2, 3)]]),
    case("split_dyn_used", SplitDynUsed(), [X], opsets=(11, 13, 17), method="script", cli_args=DYN01,
         more_inputs=[[torch.randn(3, 8)], [torch.randn(3, 1)], [torch.randn(2, 2)]]),
    case("chunk_dyn_used", ChunkDynUsed(), [torch.randn(2, 7)], opsets=(13, 17), method="script",
         cli_args=DYN01, more_inputs=[[torch.randn(2, 4)], [torch.randn(3, 9)], [torch.randn(2, 1)]]),
    case("unbind_dyn_used", UnbindDynUsed(), [X], opsets=(11, 13, 17), method="script", cli_args=DYN01,
         more_inputs=[[torch.randn(3, 2)], [torch.randn(4, 9)]]),
    case("split_dyn_unpack_trace", SplitDynUnpack(), [torch.randn(2, 5)], opsets=(11, 13, 17), cli_args=DYN01,
         more_inputs=[[torch.randn(4, 6)], [torch.randn(1, 4)]]),
    case("tensor_split_dyn_used", TensorSplitDynUsed(), [torch.randn(3, 7)], opsets=(10, 11, 13, 17),
         method="script", cli_args=DYN01,
         more_inputs=[[torch.randn(4, 9)], [torch.randn(5, 2)], [torch.randn(2, 3)], [torch.randn(1, 10)]]),
    case("tensor_split_dyn_used_trace", TensorSplitDynUsed(), [torch.randn(3, 7)], opsets=(10, 13), cli_args=DYN01,
         more_inputs=[[torch.randn(4, 8)], [torch.randn(5, 2)]]),
    case("tensor_split_dyn_return", TensorSplitDynReturn(), [torch.randn(2, 6)], opsets=(10, 11, 13),
         method="script", cli_args=DYN01, more_inputs=[[torch.randn(3, 7)], [torch.randn(1, 2)], [torch.randn(2, 13)]]),
    case("tensor_split_dyn_tensor_trace", TensorSplitDynTensor(), [torch.randn(4, 8)], opsets=(10, 13),
         cli_args=DYN01, more_inputs=[[torch.randn(6, 5)], [torch.randn(3, 1)]]),
    case("raise_on_one_path", RaiseOnOnePath(), [pos(2, 3)], opsets=(9, 11, 13), method="script",
         more_inputs=[[-pos(2, 3)]]),
]
