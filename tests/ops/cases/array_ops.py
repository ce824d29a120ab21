# Array ops composed from Tile/Gather/Slice: tile, repeat_interleave, take_along_dim (GatherElements
# from 11 with dim), diff, cross / linalg_cross, count_nonzero, cummax / cummin (doubling scan).
import torch
from op_case import Fn, case


class Script(torch.nn.Module):
    def forward(self, x, i):
        return (x.tile([2]), x.repeat_interleave(2, dim=0), torch.take_along_dim(x, i, 1), torch.diff(x, dim=0),
                torch.count_nonzero(x > 0, 1))


class Dynamic(torch.nn.Module):
    """Shape-dependent forms on dynamic axes (Shape-built targets instead of constants)."""
    def forward(self, x, i):
        return (x.repeat_interleave(2, dim=1), torch.take_along_dim(x, i, 2), torch.diff(x, dim=1), x.tile((1, 2, 1)),
                torch.count_nonzero(x > 0, (1, 2)))


class RepeatsInput(torch.nn.Module):
    """repeat_interleave with repeats given as an input (Gather index built at run time, opset 11+)."""
    def forward(self, x, r):
        return x.repeat_interleave(r, dim=1), torch.repeat_interleave(r), x.repeat_interleave(r.sum(), dim=0)


class RepeatsComputed(torch.nn.Module):
    """repeats computed from the data, on a dynamic axis; dim=None flattens; a 0-d repeats tensor."""
    def forward(self, x):
        r = (x[0] > 0).long() + 1
        return (x.repeat_interleave(r, dim=1), x[0].repeat_interleave(r),
                x.repeat_interleave(x.size(0)), x.repeat_interleave(r.max(), dim=1))


def f(*shape):
    return torch.randn(*shape)


CASES = [
    case("tile", Fn(lambda x: (x.tile((2, 1, 3)), x.tile((2,)), x.tile((2, 1, 1, 2)))), [f(2, 3, 4)]),
    case("repeat_interleave", Fn(lambda x: (x.repeat_interleave(2, dim=1), x.repeat_interleave(3),
                                            torch.repeat_interleave(x, 2, dim=-1))), [f(2, 3, 4)]),
    case("repeat_interleave_tensor", Fn(lambda x: (x.repeat_interleave(torch.tensor([1, 0, 2]), dim=1),
                                                   torch.repeat_interleave(torch.tensor([2, 1, 3])) + x.sum().long())),
         [f(2, 3, 4)]),
    case("repeat_interleave_input", RepeatsInput(), [f(2, 3, 4), torch.tensor([1, 0, 3])], opsets=(11, 13, 17),
         cli_args=("--dynamic-axes", "x=0,1", "--dynamic-axes", "r=0"),
         more_inputs=[[f(3, 5, 4), torch.tensor([2, 2, 0, 1, 4])], [f(1, 1, 4), torch.tensor([0])],
                      [f(2, 2, 4), torch.tensor([3, 3])]]),
    case("repeat_interleave_input_script", RepeatsInput(), [f(2, 3, 4), torch.tensor([1, 0, 3])], method="script",
         opsets=(11, 17), cli_args=("--dynamic-axes", "x=1", "--dynamic-axes", "r=0"),
         more_inputs=[[f(2, 5, 4), torch.tensor([2, 2, 0, 1, 4])]]),
    case("repeat_interleave_computed", RepeatsComputed(), [f(3, 5)], opsets=(11, 13, 17), method="script",
         cli_args=("--dynamic-axes", "x=0,1"), more_inputs=[[f(2, 7)], [f(4, 1)]]),
    case("take_along_dim", Fn(lambda x, i: (torch.take_along_dim(x, i, 1), torch.take_along_dim(x, i[:, :3, :2], -1))),
         [f(2, 3, 4), torch.randint(0, 3, (2, 5, 4))], opsets=(11, 13, 17)),
    case("take_along_dim_broadcast", Fn(lambda x, i: torch.take_along_dim(x, i, 2)),
         [f(2, 3, 4), torch.randint(0, 4, (1, 3, 6))], opsets=(11, 13, 17)),
    case("take_along_dim_argsort", Fn(lambda x: torch.take_along_dim(x, x.argsort(dim=1), 1)), [f(3, 5)],
         opsets=(11, 13, 17)),
    case("take_along_dim_flat", Fn(lambda x, i: torch.take_along_dim(x, i)), [f(3, 4), torch.randint(0, 12, (2, 5))]),
    case("diff", Fn(lambda x: (torch.diff(x), torch.diff(x, dim=0), torch.diff(x, n=2, dim=1))), [f(4, 5)]),
    case("diff_prepend_append", Fn(lambda x, p, a: torch.diff(x, dim=1, prepend=p, append=a)),
         [f(3, 4), f(3, 2), f(3, 1)]),
    case("diff_bool_int", Fn(lambda x, i: (torch.diff(x > 0), torch.diff(i, dim=0))), [f(3, 6), torch.randint(-5, 5, (4, 3))]),
    case("cross", Fn(lambda a, b: (torch.cross(a, b, dim=1), torch.linalg.cross(a.transpose(1, 2), b.transpose(1, 2)),
                                   torch.cross(a, b))), [f(2, 3, 4), f(2, 3, 4)]),
    case("cross_broadcast", Fn(lambda a, b: torch.linalg.cross(a, b)), [f(5, 3), f(1, 3)]),
    case("count_nonzero", Fn(lambda x: (torch.count_nonzero(x), torch.count_nonzero(x, 1),
                                        torch.count_nonzero(x, (0, 2)))), [torch.relu(f(3, 4, 5))]),
    case("cummax_cummin", Fn(lambda x: (*torch.cummax(x, 1), *torch.cummin(x, 0))), [f(5, 7)]),
    case("cummax_ties_nan", Fn(lambda x: (*torch.cummax(x, -1), *torch.cummin(x, -1))),
         [torch.tensor([[1.0, 3.0, 3.0, 2.0, float("nan"), 5.0, float("nan"), 0.0],
                        [2.0, 2.0, 1.0, 1.0, 4.0, 4.0, -1.0, -1.0]])]),
    case("cummax_int", Fn(lambda i: (*torch.cummax(i, 0), *torch.cummin(i.int(), 1))),
         [torch.randint(-3, 4, (9, 3))]),
    case("dynamic", Dynamic(), [f(2, 3, 4), torch.randint(0, 4, (1, 3, 6))], opsets=(11, 13, 17),
         cli_args=("--dynamic-axes", "x=0,1,2", "--dynamic-axes", "i=1,2")),
    case("script", Script(), [f(3, 4), torch.randint(0, 4, (3, 2))], method="script", opsets=(11, 13, 17)),
]
