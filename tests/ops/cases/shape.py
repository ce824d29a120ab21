# Shape ops: view/reshape/flatten/permute/transpose/squeeze/unsqueeze/expand/repeat/cat/stack,
# the split family, slice/select/narrow, flip, roll, movedim.
import torch
from op_case import case


def M(fn):
    class _M(torch.nn.Module):
        def forward(self, *xs):
            return fn(*xs)
    return _M()


class ViewReshape(torch.nn.Module):
    def forward(self, x, y):
        return x.view(2, -1) * 2, x.reshape(-1), x.view_as(y), x.reshape_as(y), x.reshape(x.size(0), 3, -1)


class Flatten(torch.nn.Module):
    def forward(self, x):
        return torch.flatten(x), torch.flatten(x, 1), torch.flatten(x, 1, 2), torch.flatten(x, 0, 1), x.flatten(-2)


class PermuteT(torch.nn.Module):
    def forward(self, x, m):
        return x.permute(2, 0, 1), x.transpose(0, 2), x.transpose(-1, -2).contiguous(), m.t(), torch.movedim(x, 0, -1), torch.movedim(x, (0, 1), (2, 0))


class Squeeze(torch.nn.Module):
    def forward(self, x):
        return x.squeeze(), x.squeeze(1), x.squeeze(-1), x.squeeze(0), x.unsqueeze(0), x.unsqueeze(-1), x.unsqueeze(2)


class Expand(torch.nn.Module):
    def forward(self, x, y):
        return x.expand(3, -1, 4), x.expand(2, 3, 3, 4), x.expand_as(y), x.expand(y.size(0), -1, 4)


class Repeat(torch.nn.Module):
    def forward(self, x):
        return x.repeat(2, 1, 3), x.repeat(2, 2, 1, 1)


class CatStack(torch.nn.Module):
    def forward(self, x, y, i):
        return torch.cat([x, y], 1), torch.cat((x, x, y[:, :1].expand(2, 3, 4)), -1), torch.stack([x, x], 0), torch.stack([x[:, :2], y], -1), torch.cat([x.float(), i.float()], 0)


class Split(torch.nn.Module):
    def forward(self, x):
        a, b = torch.split(x, [2, 3], 1)
        c = torch.split(x, 2, 1)
        d = torch.chunk(x, 3, 1)
        e = x.unbind(0)
        f = torch.chunk(x, 2, -1)
        return a, b, c[0], c[1], c[2], d[0], d[2], e[0], e[1], f[1]


class SplitScript(torch.nn.Module):
    def forward(self, x):
        a = torch.split(x, [2, 3], 1)
        c = torch.split(x, 2, 1)
        d = torch.chunk(x, 3, 1)
        e = x.unbind(0)
        return a[1], c[2], d[1], e[1]


class Slice(torch.nn.Module):
    def forward(self, x):
        return x[1:], x[:, 1:3], x[:, -2:], x[..., :-1], x[1:, :, ::2], x[:, ::3, 1:], x[-1], x[:, 2], x[0, -1, 1:]


class SliceStep(torch.nn.Module):
    def forward(self, x):
        return x[:, 1::2], x[::2, :, 1:4:2]


class Narrow(torch.nn.Module):
    def forward(self, x):
        return x.narrow(1, 1, 2), x.narrow(-1, -2, 2), x.narrow(0, 0, 1)


class SliceDynamic(torch.nn.Module):
    def forward(self, x, n):
        k = int(n)
        return x[:, :k], x[k:], x.select(1, k), x.narrow(1, k, 2)


class Flip(torch.nn.Module):
    def forward(self, x):
        return torch.flip(x, [0]), torch.flip(x, [1, -1])


class Roll(torch.nn.Module):
    def forward(self, x):
        return torch.roll(x, 1, 0), torch.roll(x, -2, 1), torch.roll(x, (1, 7), (1, 2)), torch.roll(x, 3)


x234 = torch.randn(2, 3, 4)
CASES = [
    case("view_reshape", ViewReshape(), [torch.randn(2, 3, 4), torch.randn(4, 6)]),
    case("view_reshape_script", ViewReshape(), [torch.randn(2, 3, 4), torch.randn(4, 6)], method="script"),
    case("flatten", Flatten(), [torch.randn(2, 3, 4, 5)]),
    case("flatten_script", Flatten(), [torch.randn(2, 3, 4, 5)], method="script"),
    case("permute_transpose", PermuteT(), [x234, torch.randn(3, 5)]),
    case("squeeze_unsqueeze", Squeeze(), [torch.randn(1, 3, 1, 4, 1)], opsets=(9, 11, 13, 17)),
    case("squeeze_unsqueeze_script", Squeeze(), [torch.randn(1, 3, 1, 4, 1)], method="script"),
    case("expand", Expand(), [torch.randn(3, 1, 4), torch.randn(3, 3, 4)]),
    case("repeat", Repeat(), [x234]),
    case("cat_stack", CatStack(), [x234, torch.randn(2, 2, 4), torch.randint(0, 5, (2, 3, 4))]),
    case("cat_stack_script", CatStack(), [x234, torch.randn(2, 2, 4), torch.randint(0, 5, (2, 3, 4))], method="script"),
    case("split_chunk_unbind", Split(), [torch.randn(2, 5, 4)], opsets=(9, 11, 13, 17)),
    case("split_chunk_unbind_script", SplitScript(), [torch.randn(2, 5, 4)], method="script"),
    case("slice_select", Slice(), [torch.randn(3, 7, 5)], opsets=(9, 10, 11, 13, 17)),
    case("slice_select_script", Slice(), [torch.randn(3, 7, 5)], opsets=(9, 10, 13, 17), method="script"),
    case("slice_step", SliceStep(), [torch.randn(5, 3, 6)], opsets=(9, 10, 13, 17)),
    case("narrow", Narrow(), [torch.randn(3, 4, 5)], opsets=(9, 10, 13, 17)),
    case("slice_runtime_bounds", SliceDynamic(), [torch.randn(4, 6), torch.tensor(2)], opsets=(10, 11, 13, 17), method="script"),
    case("flip", Flip(), [x234], opsets=(9, 10, 13, 17)),
    case("roll", Roll(), [x234], opsets=(9, 10, 13, 17)),
]


class ChunkDynamic(torch.nn.Module):
    def forward(self, x):
        a, b = x.chunk(2, 1)
        return a.sum(1) + b.sum(1), a


class ChunkDynamicScript(torch.nn.Module):
    def forward(self, x):
        parts = x.chunk(3, 1)
        return parts[0].sum(1) + parts[-1].sum(1)


# chunk on a dynamic dim: ceil(D / n)-sized parts computed at run time (Split sizes input from 13,
# Slices at 10-12; opset 9 refuses).
CASES += [
    case("chunk_dynamic", ChunkDynamic(), [torch.randn(2, 6)], opsets=(10, 11, 13, 17), cli_args=("--dynamic-axes", "x=1")),
    case("chunk_dynamic_script", ChunkDynamicScript(), [torch.randn(2, 6)], opsets=(10, 11, 13, 17), method="script",
         cli_args=("--dynamic-axes", "x=1")),
]
