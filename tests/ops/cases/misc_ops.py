# nonzero / argwhere / nonzero(as_tuple=True), masked_select, one_hot, outer / ger, glu,
# unflatten, broadcast_tensors, meshgrid.
import torch
import torch.nn.functional as F
from op_case import case


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class Script(torch.nn.Module):
    def forward(self, x, i):
        a, b = torch.meshgrid(x[0], x[1], indexing="xy")
        return torch.nonzero(x > 0), F.one_hot(i, 6), F.glu(x, 1), x.unflatten(1, (2, 3)), a, b


class Dynamic(torch.nn.Module):
    def forward(self, x, m):
        return x.unflatten(1, (2, -1)), torch.masked_select(x, m), torch.nonzero(x > 0), *torch.broadcast_tensors(x, m)


def f(*shape):
    return torch.randn(*shape)


CASES = [
    case("nonzero", Fn(lambda x: (torch.nonzero(x > 0), torch.argwhere(torch.relu(x)), *torch.nonzero(x < 0, as_tuple=True))),
         [f(3, 4, 5)]),
    case("masked_select", Fn(lambda x, m: (torch.masked_select(x, m), torch.masked_select(x, x > 0.5))),
         [f(3, 4), torch.rand(4) > 0.5]),
    case("one_hot", Fn(lambda i: (F.one_hot(i, 7), F.one_hot(i))), [torch.tensor([[0, 3, 1], [5, 5, 2]])]),
    case("outer", Fn(lambda a, b, i: (torch.outer(a, b), torch.ger(a, i))), [f(3), f(4), torch.arange(5)]),
    case("glu", Fn(lambda x: (F.glu(x), F.glu(x, 0), torch.nn.GLU(1)(x))), [f(4, 6, 8)]),
    case("unflatten", Fn(lambda x: (x.unflatten(1, (2, 3)), x.unflatten(-1, (-1, 2)), torch.nn.Unflatten(0, (2, 1))(x))),
         [f(2, 6, 4)]),
    case("broadcast_tensors", Fn(lambda a, b, c: torch.broadcast_tensors(a, b, c)), [f(3, 1), f(4), f(2, 1, 1)]),
    case("meshgrid", Fn(lambda a, b, c: (*torch.meshgrid(a, b, indexing="ij"), *torch.meshgrid(a, b, c, indexing="xy"))),
         [f(3), f(4), f(2)]),
    case("dynamic", Dynamic(), [f(2, 6, 3), torch.rand(6, 1) > 0.5],
         cli_args=("--dynamic-axes", "x=0,2")),
    case("script", Script(), [f(2, 6), torch.tensor([0, 5, 2])], method="script"),
]
