# 0-d tensors stay 0-d: elementwise ops, activations with a scalar weight, shape-preserving ops with
# dims on a 0-d input, empty shapes, lists unpacked into Python numbers.
import torch
import torch.nn.functional as F
from op_case import Fn, case

S = torch.tensor(0.7)
N = torch.tensor(-1.3)


class Activations(torch.nn.Module):
    def forward(self, a):
        return (F.hardshrink(a, 0.5), F.softshrink(a, 0.5), F.hardsigmoid(a), F.hardswish(a), torch.log2(a.abs()),
                F.relu6(a), F.softplus(a, 2.0, 1.0), F.threshold(a, 0.5, 2.0))


class PReLU(torch.nn.Module):
    def __init__(self, n=1):
        super().__init__()
        self.act = torch.nn.PReLU(n, init=0.3)

    def forward(self, x):
        return self.act(x)


class Unbound(torch.nn.Module):
    def forward(self, a):
        x, y = a.unbind(0)
        return x * 2, y


class ListUnpack(torch.nn.Module):
    def forward(self, a):
        first, second = [a[0], a[1]]
        return first + second, first


class TolistNumbers(torch.nn.Module):
    def forward(self, a):
        p, q = a.tolist()
        return torch.tensor(p) + q


class EmptyShapes(torch.nn.Module):
    def forward(self, a):
        return a.reshape([]), torch.zeros([]) + a.sum(), a.new_full([], 2.0), a.sum().expand([])


class DimOps(torch.nn.Module):
    def forward(self, a):
        return a.flip(0), torch.cumsum(a, 0), F.softmax(a, 0), a.unsqueeze(0).squeeze(0), a.flatten(), a.expand([])


CASES = [
    case("activations", Activations(), [S]),
    case("activations_negative", Activations(), [N]),
    case("activations_script", Activations(), [N], method="script"),
    case("prelu_scalar_weight", PReLU(), [N]),
    case("prelu_scalar_weight_1d", PReLU(), [torch.randn(5)]),
    case("full_like", Fn(lambda a: torch.full_like(a, 3.0) + torch.zeros_like(a)), [S]),
    case("unbind_to_0d", Unbound(), [torch.randn(2)]),
    case("unbind_to_0d_script", Unbound(), [torch.randn(2)], method="script"),
    case("list_unpack", ListUnpack(), [torch.randn(2)]),
    case("list_unpack_script", ListUnpack(), [torch.randn(2)], method="script"),
    case("tolist_numbers", TolistNumbers(), [torch.randn(2)]),
    case("empty_shapes", EmptyShapes(), [torch.randn(1)]),
    case("empty_shapes_script", EmptyShapes(), [torch.randn(1)], method="script"),
    case("dim_ops", DimOps(), [S], opsets=(11, 13, 17)),
    case("flip_opset9", Fn(lambda a: a.flip(0) * 2), [S], opsets=(9,)),
]
