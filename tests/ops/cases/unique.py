# torch.unique (sorted; return_inverse, return_counts; dim) -> ONNX Unique (opset 11).
import torch
from op_case import Fn, case

OPSETS = (11, 13, 17)


class Unique(torch.nn.Module):
    def forward(self, x):
        u = torch.unique(x)
        u2, inv = torch.unique(x, return_inverse=True)
        u3, inv3, cnt3 = torch.unique(x, return_inverse=True, return_counts=True)
        u4, cnt4 = torch.unique(x, return_counts=True)
        return u, u2, inv, u3, inv3, cnt3, u4, cnt4


class UniqueDim(torch.nn.Module):
    def forward(self, x):
        a, ia, ca = torch.unique(x, dim=0, return_inverse=True, return_counts=True)
        b, ib = torch.unique(x, dim=1, return_inverse=True)
        c = torch.unique(x, sorted=False, dim=0)
        return a, ia, ca, b, ib, c


CASES = [
    case("unique_int", Unique(), [torch.tensor([[3, 1, 2], [1, 7, 3], [0, 3, 3]])], opsets=OPSETS),
    case("unique_float", Unique(), [torch.tensor([2.5, -1.0, 2.5, 0.0, 7.0, -1.0])], opsets=OPSETS),
    case("unique_int32", Fn(lambda x: torch.unique(x, return_counts=True)), [torch.tensor([5, 1, 5, 2], dtype=torch.int32)],
         opsets=OPSETS),
    case("unique_bool", Fn(lambda x: torch.unique(x, return_inverse=True)), [torch.tensor([True, False, True])],
         opsets=OPSETS),
    case("unique_dim", UniqueDim(), [torch.tensor([[1, 2, 1], [0, 5, 0], [1, 2, 1], [0, 4, 0]])], opsets=OPSETS),
    case("unique_script", Unique(), [torch.tensor([4, 4, 1, 0, 1, 9])], opsets=OPSETS, method="script"),
]
