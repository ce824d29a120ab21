# Scripted ops that return a list of tensors (split, chunk, tensor_split, broadcast_tensors, unbind),
# the list returned as the model's result (flattened into one output per tensor, as torch.onnx's
# users read it) or used whole (len, a loop over it, cat), with and without dynamic axes.
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
        return torch.tensor_split(x, [1, 3], dim=1), torch.tensor_split(x, 2, dim=0)


class BroadcastReturn(torch.nn.Module):
    def forward(self, x, y):
        return torch.broadcast_tensors(x, y)


class UnbindReturn(torch.nn.Module):
    def forward(self, x):
        return torch.unbind(x, 1)


class ListUsedWhole(torch.nn.Module):
    """len() of a split, a loop over its pieces, cat of them reversed."""
    def forward(self, x):
        parts = torch.split(x, 2, dim=1)
        acc = torch.zeros_like(parts[0][:, :1])
        for p in parts:
            acc = acc + p.sum(1, keepdim=True)
        rev: List[torch.Tensor] = []
        for i in range(len(parts)):
            rev.append(parts[len(parts) - 1 - i])
        return acc * float(len(parts)), torch.cat(rev, 1)


X = torch.randn(3, 5)
DYN1 = ("--dynamic-axes", "x=1")
DYN0 = ("--dynamic-axes", "x=0")
CASES = [
    case("split_return", SplitReturn(), [X], opsets=(9, 11, 13, 17, 18), method="script"),
    case("split_return_dyn0", SplitReturn(), [X], opsets=(11, 13, 18), method="script", cli_args=DYN0,
         more_inputs=[[torch.randn(6, 5)]]),
    case("split_sizes_return", SplitSizesReturn(), [X], opsets=(9, 11, 13, 17), method="script"),
    case("split_sizes_return_dyn0", SplitSizesReturn(), [X], opsets=(11, 13), method="script", cli_args=DYN0,
         more_inputs=[[torch.randn(2, 5)]]),
    case("chunk_return", ChunkReturn(), [torch.randn(2, 7)], opsets=(9, 11, 13, 18), method="script"),
    case("chunk_return_dyn0", ChunkReturn(), [torch.randn(2, 7)], opsets=(11, 13, 18), method="script",
         cli_args=DYN0, more_inputs=[[torch.randn(4, 7)]]),
    case("tensor_split_return", TensorSplitReturn(), [torch.randn(4, 5)], opsets=(9, 11, 13), method="script"),
    case("tensor_split_return_dyn0", TensorSplitReturn(), [torch.randn(4, 5)], opsets=(11, 13), method="script",
         cli_args=DYN0, more_inputs=[[torch.randn(6, 5)]]),
    case("broadcast_return", BroadcastReturn(), [torch.randn(3, 1), torch.randn(1, 4)], opsets=(9, 13), method="script"),
    case("broadcast_return_dyn", BroadcastReturn(), [torch.randn(3, 1), torch.randn(1, 4)], opsets=(11, 13),
         method="script", cli_args=("--dynamic-axes", "x=0", "--dynamic-axes", "y=1"),
         more_inputs=[[torch.randn(2, 1), torch.randn(1, 6)]]),
    case("unbind_return", UnbindReturn(), [X], opsets=(9, 11, 13), method="script"),
    case("unbind_return_dyn0", UnbindReturn(), [X], opsets=(11, 13), method="script", cli_args=DYN0,
         more_inputs=[[torch.randn(7, 5)]]),
    case("list_used_whole", ListUsedWhole(), [X], opsets=(11, 13, 17), method="script"),
]
