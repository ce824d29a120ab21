# nonzero / argwhere / nonzero(as_tuple=True), masked_select, one_hot, outer / ger, glu,
# unflatten, broadcast_tensors, meshgrid, pairwise_distance, cdist, Tensor.unfold, bucketize, rrelu
# (eval), channel_shuffle, diagonal, diag.
import torch
import torch.nn.functional as F
from op_case import Fn, case


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
    case("pairwise_distance", Fn(lambda a, b: (F.pairwise_distance(a, b), F.pairwise_distance(a, b, p=1.0, keepdim=True),
                                                F.pairwise_distance(a[0], b[1], p=3.0, eps=1e-3))), [f(4, 6), f(4, 6)]),
    case("cdist", Fn(lambda a, b: (torch.cdist(a, b), torch.cdist(a, b, p=1.0), torch.cdist(a[0], b[0], p=float("inf")))),
         [f(2, 4, 3), f(2, 5, 3)]),
    case("unfold", Fn(lambda x: (x.unfold(1, 3, 2), x.unfold(-1, 2, 1), x.unfold(0, 2, 2))), [f(4, 7, 5)]),
    case("bucketize", Fn(lambda x, b: (torch.bucketize(x, b), torch.bucketize(x, b, right=True, out_int32=True))),
         [torch.tensor([[-2.0, -1.0, 0.0, 0.5], [1.0, 3.0, 0.25, -0.5]]), torch.tensor([-1.0, 0.0, 0.5, 1.0])]),
    case("rrelu_eval", torch.nn.RReLU(0.1, 0.3), [f(3, 4)]),
    case("channel_shuffle", torch.nn.ChannelShuffle(3), [f(2, 6, 3, 4)]),
    case("diagonal", Fn(lambda x: (torch.diagonal(x), torch.diagonal(x, 1, 1, 2), torch.diagonal(x, -1, -1, 0),
                                   torch.diag(x[0]), torch.diag(x[0, 0]), torch.diag(x[1], -2))), [f(3, 4, 5)]),
    case("dynamic", Dynamic(), [f(2, 6, 3), torch.rand(6, 1) > 0.5],
         cli_args=("--dynamic-axes", "x=0,2")),
    case("script", Script(), [f(2, 6), torch.tensor([0, 5, 2])], method="script"),
]


class Diagonals(torch.nn.Module):
    def forward(self, x):
        return x.diagonal(1), x.diagonal(-1, 0, 1), x.diagonal(), x.diagonal(7)


# diagonal with offsets on dynamic dims: positions computed at run time (NonZero-made indices).
CASES += [
    case("diagonal_dynamic_offsets", Diagonals(), [torch.randn(4, 5)], opsets=(9, 11, 13, 17),
         cli_args=("--dynamic-axes", "x=0,1")),
    case("diagonal_dynamic_batched", Fn(lambda x: (x.diagonal(1, 1, 2), x.diagonal(-2, 2, 1))), [torch.randn(2, 4, 5)],
         opsets=(9, 11, 13, 17), cli_args=("--dynamic-axes", "x=0,1,2")),
]
