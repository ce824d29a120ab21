# tensordot, tensor_split (sections / indices / tensor), take, bit shifts << >> on integers, eye,
# linspace (constant and run-time arguments), tril_indices / triu_indices.
import torch
from op_case import Fn, case


def f(*shape):
    return torch.randn(*shape)


class TensorSplit(torch.nn.Module):
    def forward(self, x):
        return (*torch.tensor_split(x, 3, dim=1), *torch.tensor_split(x, 4), *torch.tensor_split(x, [1, 3]),
                *torch.tensor_split(x, [-2, 9, 3], dim=2), *torch.tensor_split(x, torch.tensor([1, 2]), 1),
                *torch.tensor_split(x, torch.tensor(2), -1))


class TensorSplitScript(torch.nn.Module):
    def forward(self, x):
        a = torch.tensor_split(x, 3, dim=1)
        b = torch.tensor_split(x, [1, 4], dim=-1)
        return a[0], a[2], b[1], b[2]


class Shifts(torch.nn.Module):
    def forward(self, a, b, c):
        return (a << 2, a >> 1, a << b, a >> b, torch.bitwise_left_shift(c, 3), torch.bitwise_right_shift(c, 2),
                c >> c.clamp(0, 3), 3 << b)


class Creation(torch.nn.Module):
    def forward(self, x):
        return (torch.eye(3), torch.eye(2, 4, dtype=torch.int64), torch.eye(4, 2, dtype=torch.bool),
                torch.linspace(0, 1, 5), torch.linspace(-2.5, 7.25, 10, dtype=torch.float64),
                torch.linspace(3, -3, 7, dtype=torch.int32), torch.linspace(1, 2, 1), torch.linspace(0, 1, 0),
                torch.tril_indices(3, 4), torch.tril_indices(4, 3, 1), torch.triu_indices(3, 3),
                torch.triu_indices(4, 5, -1), torch.tril_indices(3, 3, -1, dtype=torch.int32), x)


class RuntimeLinspace(torch.nn.Module):
    def forward(self, x):
        return torch.linspace(float(x[0]), float(x[1]), 6), torch.linspace(0.0, float(x[1]), 11, dtype=torch.float64)


class RuntimeSize(torch.nn.Module):
    def forward(self, x):
        n = x.size(0)
        return torch.eye(n), torch.eye(n, x.size(1), dtype=torch.int64), torch.linspace(-1, 1, n)


CASES = [
    case("tensordot", Fn(lambda a, b, c: (torch.tensordot(a, b, dims=([1, 0], [0, 1])), torch.tensordot(a, c, dims=1),
                                          torch.tensordot(a, c, dims=0), torch.tensordot(b, b, dims=3))),
         [f(3, 4, 5), f(4, 3, 2), f(5, 2)]),
    case("tensordot_int", Fn(lambda a, b: torch.tensordot(a, b, dims=([0], [1]))),
         [torch.randint(-5, 5, (3, 4)), torch.randint(-5, 5, (2, 3))]),
    case("tensordot_dynamic", Fn(lambda a, b: torch.tensordot(a, b, dims=([1], [0]))), [f(3, 4, 5), f(4, 6)],
         cli_args=("--dynamic-axes", "a=0,2", "--dynamic-axes", "b=1")),
    case("tensor_split", TensorSplit(), [f(5, 6, 7)]),
    case("tensor_split_script", TensorSplitScript(), [f(5, 7, 6)], method="script"),
    case("take", Fn(lambda x, i: (torch.take(x, i), torch.take(x, i[0]), torch.take(x, torch.tensor(-1)))),
         [f(3, 4), torch.tensor([[0, 11, -12], [5, -1, 2]])]),
    case("take_dynamic", Fn(lambda x, i: torch.take(x, i)), [f(3, 4), torch.tensor([[0, 11, -12], [5, -1, 2]])],
         cli_args=("--dynamic-axes", "x=0", "--dynamic-axes", "i=1")),
    case("shifts", Shifts(), [torch.tensor([[-5, 7, 1000, -1], [3, -8, 0, 123456789]]), torch.tensor([0, 1, 3, 5]),
                              torch.tensor([[100, -7, 127, -128]], dtype=torch.int8)]),
    case("shifts_uint8", Fn(lambda a, b: (a << b, a >> b, a << 1)),
         [torch.tensor([200, 3, 255, 17], dtype=torch.uint8), torch.tensor([3, 2, 1, 0], dtype=torch.uint8)]),
    case("creation", Creation(), [f(2)]),
    case("linspace_runtime", RuntimeLinspace(), [torch.tensor([-1.5, 4.0])], method="script"),
    case("runtime_size", RuntimeSize(), [f(5, 3)], opsets=(11, 13, 17), cli_args=("--dynamic-axes", "x=0,1")),
]
