# index_put / index_add inside if and loop blocks (scripted models; the branch and the trip count are
# decided at run time), and aten::set_ (opset9/set.cpp).
import torch
from op_case import case

torch.manual_seed(0)
OPSETS = (11, 16, 17)


class IndexPutInIf(torch.nn.Module):
    def forward(self, x, idx, v):
        y = x.clone()
        if bool(x.sum() > 0):
            y[idx] = v
        else:
            y.index_put_((idx,), v * 2, accumulate=True)
        return y


class IndexAddInIf(torch.nn.Module):
    def forward(self, x, idx, src):
        if bool(x.sum() > 0):
            y = x.index_add(1, idx, src)
        else:
            y = x.clone()
            y.index_add_(1, idx, src, alpha=-1.5)
        return y


class IndexOpsInLoop(torch.nn.Module):
    def forward(self, x, idx, src, steps):
        y = x.clone()
        z = x.clone()
        for k in range(int(steps)):
            y.index_add_(0, idx, src * float(k + 1))
            z[idx] = z[idx] + src
        return y, z


class SetSource(torch.nn.Module):
    def forward(self, x, y):
        return x.clone().set_(y) * 2


class SetThenRead(torch.nn.Module):
    def forward(self, x, y):
        z = x.clone()
        z.set_(y)
        return z + 1


IDX = torch.tensor([2, 0, 2])  # repeated: accumulate sums, index_add sums
UNIQUE = torch.tensor([2, 0, 3])  # index_put without accumulate: repeated indices have no defined winner
CASES = [
    # accumulate=True needs opset 16 (ScatterND reduction add)
    case("index_put_in_if", IndexPutInIf(), [torch.randn(4, 3).abs(), UNIQUE, torch.randn(3, 3)], opsets=(16, 17),
         method="script", more_inputs=[[-torch.randn(4, 3).abs(), IDX, torch.randn(3, 3)]]),
    case("index_add_in_if", IndexAddInIf(), [torch.randn(2, 4).abs(), IDX, torch.randn(2, 3)], opsets=OPSETS,
         method="script", more_inputs=[[-torch.randn(2, 4).abs(), IDX, torch.randn(2, 3)]]),
    case("index_ops_in_loop", IndexOpsInLoop(), [torch.randn(4, 3), torch.tensor([3, 1]), torch.randn(2, 3),
                                                 torch.tensor(3)], opsets=OPSETS, method="script",
         more_inputs=[[torch.randn(4, 3), torch.tensor([3, 1]), torch.randn(2, 3), torch.tensor(0)]]),
    case("set_source", SetSource(), [torch.randn(2), torch.randn(3, 2)], method="script"),
    case("set_then_read", SetThenRead(), [torch.randn(2), torch.randn(3, 2)], method="script"),
]
