# hstack / vstack / row_stack / dstack / column_stack, atleast_1d/2d/3d (single and sequence),
# rot90, diag_embed.
import torch
from op_case import Fn, case


def f(*shape):
    return torch.randn(*shape)


class Stacks(torch.nn.Module):
    def forward(self, s, v, m, i):
        return (torch.hstack([v, v, i]), torch.hstack([m, m]), torch.vstack([v, v]), torch.vstack([m.t(), v.unsqueeze(0)]),
                torch.row_stack([s, s]), torch.dstack([v, v]), torch.dstack([m, m]), torch.dstack([s, s]),
                torch.column_stack([v, m, i]), torch.column_stack([s, s]), torch.hstack([s, s]))


class Atleast(torch.nn.Module):
    def forward(self, s, v, m, c):
        return (torch.atleast_1d(s), torch.atleast_1d(m), torch.atleast_2d(s), torch.atleast_2d(v),
                torch.atleast_2d(c), torch.atleast_3d(s), torch.atleast_3d(v), torch.atleast_3d(m), torch.atleast_3d(c),
                *torch.atleast_2d([s, v, m]), *torch.atleast_3d((v, m)), *torch.atleast_1d([s, v]))


class StacksScript(torch.nn.Module):
    def forward(self, v, m):
        return torch.hstack([v, v]), torch.vstack([m.t(), v.unsqueeze(0)]), torch.dstack([m, m]), torch.column_stack([v, m])


class Rot90(torch.nn.Module):
    def forward(self, x):
        return (torch.rot90(x), torch.rot90(x, 2), torch.rot90(x, 3), torch.rot90(x, -1), torch.rot90(x, 4),
                torch.rot90(x, 1, [1, 2]), torch.rot90(x, 3, [2, 0]), torch.rot90(x, 5, [-1, -2]))


class DiagEmbed(torch.nn.Module):
    def forward(self, x, i):
        return (torch.diag_embed(x), torch.diag_embed(x, 1), torch.diag_embed(x, -2), torch.diag_embed(x, 0, 0, 2),
                torch.diag_embed(x, 1, -1, 0), torch.diag_embed(x[0, 0]), torch.diag_embed(i, -1, 1, 0),
                torch.diag_embed(x > 0))


CASES = [
    case("stacks", Stacks(), [torch.tensor(1.5), f(3), f(3, 2), torch.tensor([1, 2, 3])]),
    case("stacks_script", StacksScript(), [f(3), f(3, 2)], method="script"),
    case("atleast", Atleast(), [torch.tensor(2.0), f(4), f(2, 3), f(2, 3, 4)]),
    case("rot90", Rot90(), [f(2, 3, 4)]),
    case("rot90_dynamic", Fn(lambda x: (torch.rot90(x), torch.rot90(x, 2, [0, 2]))), [f(2, 3, 4)],
         opsets=(10, 13, 17), cli_args=("--dynamic-axes", "x=0,1,2")),
    case("diag_embed", DiagEmbed(), [f(2, 3, 4), torch.randint(-9, 9, (2, 3))]),
]
