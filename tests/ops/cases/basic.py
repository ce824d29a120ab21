# The base pack's own ops (activations, arithmetic, shape plumbing) in isolation.
import torch
from op_case import case


class Relu(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) + torch.sigmoid(x) * torch.tanh(x)


class AddScalar(torch.nn.Module):
    def forward(self, x, y):
        return (x + 2) * y - x / 3


class ViewSize(torch.nn.Module):
    def forward(self, x):
        return x.view(x.size(0), -1) * 2


class DictOut(torch.nn.Module):
    def forward(self, x):
        return {"doubled": x * 2, "pair": (x + 1, x.sum(0)), "last": torch.relu(x)}


CASES = [
    case("relu_sigmoid_tanh", Relu(), [torch.randn(2, 3, 4)]),
    case("arith_scalar", AddScalar(), [torch.randn(2, 3), torch.randn(2, 3)]),
    case("view_size", ViewSize(), [torch.randn(2, 3, 4)]),
    case("view_size_script", ViewSize(), [torch.randn(2, 3, 4)], method="script"),
    # Dict outputs become one ONNX output per value, in insertion order (nested tuples flattened).
    case("dict_outputs_script", DictOut(), [torch.randn(2, 3)], method="script"),
]
