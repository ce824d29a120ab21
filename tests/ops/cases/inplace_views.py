# In-place writes into views (x[a:b] = v, x[i].fill_(v), x[:, :2] += 1), which the host rewrites into
# functional ops plus aten::slice_scatter / aten::select_scatter, and those two ops called directly.
# Opset 9 uses Scatter for stepped slices, 11+ ScatterElements; Slice takes inputs from 10.
import torch
from op_case import case

ALL = (9, 11, 13, 17)


class SwinMask(torch.nn.Module):
    """torchvision Swin's shifted-window mask: fill_ on 2-D slices (negative bounds) of new_zeros."""
    def forward(self, x):
        mask = x.new_zeros((x.size(2), x.size(3)))
        slices = ((0, -4), (-4, -2), (-2, None))
        count = 0
        for h in slices:
            for w in slices:
                mask[h[0]:h[1], w[0]:w[1]] = count
                count += 1
        return x + mask


class MaskInBranch(torch.nn.Module):
    """Scripted Swin: the mask is made and written inside `if` (a branch the data decides here), then
    read in that branch."""
    def forward(self, x):
        if bool(x.sum() > 0):
            mask = x.new_zeros((x.size(0), x.size(1)))
            mask[0:2, 1:3] = 1.0
            mask[-1:, :1] = 2.0
            y = x + mask
        else:
            y = x * 2.0
        return y


class StepFill(torch.nn.Module):
    def forward(self, x):
        z = torch.zeros_like(x)
        z[:, 1::2] = 1.0
        z[::3, :] = -1.0
        z[1:-1:2, -4::3] = 5.0
        return z * x


class CopyIntoSlice(torch.nn.Module):
    def forward(self, x, v, i):
        y = x.clone()
        y[:, 1:3] = v         # broadcast [2] -> [rows, 2]
        y[-2:, :2] = i        # int64 -> float (copy_ casts)
        y[0:1] = x[-1:] * 2   # a value computed from the tensor itself
        return y


class SelectFill(torch.nn.Module):
    def forward(self, x):
        y = x * 1
        y[1] = 0.0
        y[:, -1] = 5.0
        y[-1, 2] = -3.0
        return y


class Nested(torch.nn.Module):
    """slice of a slice on one axis, then slice + slice + select + slice."""
    def forward(self, x):
        y = x.clone()
        y[1:5][1:3] = 3.0
        y[1:, 2:][0, :2] = 7.0
        return y


class AddOnSlice(torch.nn.Module):
    def forward(self, x):
        y = x.clone()
        y[:, :2] += 1.0
        y[1:3] *= x[1:3]
        y[-1].sub_(y[0])
        return y


class ReadBeforeAndAfter(torch.nn.Module):
    """A read before the write sees the old value; a view taken before it and read after, the new."""
    def forward(self, x):
        y = x.clone()
        before = y * 2
        v = y[1:]
        y[:2] = 9.0
        return before, y + 1, v * 1


class ViewsOfViews(torch.nn.Module):
    """Writes through transpose, t, permute, view and unsqueeze."""
    def forward(self, x):
        y = x.clone()
        y.t()[0] = 1.0
        y.transpose(0, 1)[-1, 1:3] = 2.0
        y.view(-1)[::5] = 3.0
        y.unsqueeze(0)[0, 2] = 4.0
        z = torch.zeros(2, 3, 4)
        z.permute(2, 0, 1)[1] = 6.0
        w = torch.zeros(3, 4)
        w.t().copy_(x[:4, :3])       # a transposed, then broadcast value written back...
        w.view(-1)[1:3] = x[0, :2]   # ...and a view of the result still works
        w[0].copy_(x[1, 0])
        f = w.view(-1)               # a view taken before writes into the base...
        w[2] = 5.0
        f[0] = -5.0                  # ...and written into after
        return y, z, w.view(2, 6), f


class IndexPutOnView(torch.nn.Module):
    def forward(self, x, m, idx):
        y = x.clone()
        y[:, 0][m] = 0.0            # bool mask into a select
        y[1:][idx] = -1.0           # int index into a slice
        y[2:, 1:][idx, idx] = 8.0   # two index tensors into a 2-D slice
        return y


class MaskFill(torch.nn.Module):
    """x[mask] = number: Where at every opset."""
    def forward(self, x):
        y = x.clone()
        y[x > 0.5] = 0.5
        y[:, 1:][y[:, 1:] < -1] = -1.0
        return y


class IndexPut(torch.nn.Module):
    """index_put_ on fresh tensors (mutation removal makes it index_put): masks with tensors of
    values, int indices (negative, 2-D, several), trailing full slices."""
    def forward(self, x, m, idx, rows):
        y = x.clone()
        y[m] = rows[m] * 2
        y[idx] = rows[:2, :4] * 10
        y[idx.view(2, 1), -1 - idx] = 3.0
        y[-1, 0] = 42.0
        z = torch.zeros(5, 4)
        z.index_put_((idx,), torch.ones(4), accumulate=True)
        z.index_put_((idx,), torch.ones(4), accumulate=True)
        return y, z


class ScatterDirect(torch.nn.Module):
    """slice_scatter / select_scatter as ops (torch.ops: the Python bindings of this torch build
    mis-bind start/end)."""
    def forward(self, x, a, b, c):
        s = torch.ops.aten.slice_scatter(x, a, 1, 1, 3, 1)
        t = torch.ops.aten.slice_scatter(x, b, 0, -5, None, 2)
        u = torch.ops.aten.select_scatter(x, c, 1, -1)
        return s, t, u


class ScriptedWrites(torch.nn.Module):
    def forward(self, x):
        y = x.clone()
        y[1:3, 0] = 2.0
        y[0] += x[1]
        y[:, -2:] = torch.slice_scatter(y[:, -2:], x[:1, :2] * 0.5, dim=0, start=3, end=4)
        return y


class ScriptedIntWrites(torch.nn.Module):
    """Scripted number writes copy aten::tensor(v, dtype of the view): 2.7 into int64 is 2."""
    def forward(self, x):
        y = (x * 10).long()
        y[1:3] = 2.7
        y[:, 0] = -1
        y[-1] += 5
        return y


def _x(*shape):
    return torch.randn(*shape)


CASES = [
    case("swin_mask", SwinMask(), [_x(1, 2, 8, 8)]),
    case("swin_mask_script", SwinMask(), [_x(1, 2, 8, 8)], method="script"),
    case("mask_in_branch_script", MaskInBranch(), [torch.ones(4, 5)], method="script",
         more_inputs=[[-torch.ones(4, 5)]]),
    case("step_fill", StepFill(), [_x(7, 9)], opsets=ALL),
    case("copy_into_slice", CopyIntoSlice(), [_x(4, 5), _x(2), torch.randint(-5, 5, (2, 2))]),
    case("select_fill", SelectFill(), [_x(3, 4)]),
    case("nested", Nested(), [_x(6, 5)]),
    case("add_on_slice", AddOnSlice(), [_x(4, 5)]),
    case("read_before_and_after", ReadBeforeAndAfter(), [_x(4, 3)]),
    case("views_of_views", ViewsOfViews(), [_x(4, 5)], opsets=ALL),
    case("index_put_on_view", IndexPutOnView(), [_x(5, 4), torch.tensor([True, False, True, False, True]),
                                                  torch.tensor([0, 2])], opsets=(11, 13, 17)),
    case("mask_fill", MaskFill(), [_x(5, 4)], opsets=ALL),
    case("index_put", IndexPut(), [_x(5, 4), torch.tensor([True, False, True, True, False]),
                                   torch.tensor([3, -1]), _x(5, 4)], opsets=(17,)),
    case("scatter_direct", ScatterDirect(), [_x(6, 4), _x(6, 2), _x(3, 4), _x(6)], opsets=ALL),
    case("scripted_writes", ScriptedWrites(), [_x(5, 4)], method="script"),
    case("scripted_int_writes", ScriptedIntWrites(), [_x(4, 3)], method="script"),
]


class SliceScatterStep(torch.nn.Module):
    def forward(self, x, y):
        return torch.ops.aten.slice_scatter(x, y, 1, 0, 6, 2), torch.ops.aten.slice_scatter(x, y, 1, 1, None, 2)


# slice_scatter with steps
CASES += [
    case("slice_scatter_steps", SliceScatterStep(), [torch.randn(2, 6), torch.randn(2, 3)], opsets=(9, 11, 13, 17)),
]
