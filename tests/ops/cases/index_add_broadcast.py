# index_add whose source has size 1 in a dim other than `dim` where self is larger: PyTorch adds each
# source slice to self's slice as a broadcast (issue 29). OneHot + MatMul before opset 16 (the Add
# broadcasts), ScatterElements(add) from 16 on the source expanded to self's shape; at the top level,
# in a loop, in a branch and with dynamic axes. Values, dtype and shape compared with PyTorch.
import torch
from op_case import case

torch.manual_seed(0)
OPSETS = (11, 15, 16, 17)


class IndexAdd(torch.nn.Module):
    def __init__(self, dim, alpha=1.0):
        super().__init__()
        self.dim = dim
        self.alpha = alpha

    def forward(self, x, index, source):
        return x.index_add(self.dim, index, source, alpha=self.alpha)


class IndexAddInplace(torch.nn.Module):
    def forward(self, x, index, source):
        y = x.clone()
        y.index_add_(-1, index, source)
        return y


class InLoop(torch.nn.Module):
    def forward(self, x, index, source, steps):
        y = x.clone()
        for k in range(int(steps)):
            y.index_add_(1, index, source * float(k + 1))
        return y


class InBranch(torch.nn.Module):
    def forward(self, x, index, source):
        if bool(x.sum() > 0):
            y = x.index_add(1, index, source)
        else:
            y = x.clone()
            y.index_add_(2, index, source.transpose(1, 2), alpha=-1.5)
        return y


class Dynamic(torch.nn.Module):
    def forward(self, x, index, source):
        return x.index_add(1, index, source) * 2


IDX = torch.tensor([2, 0, 2])  # repeated: both additions land
CASES = [
    case("source_ones_outside_dim", IndexAdd(1), [torch.randn(3, 4, 5), IDX, torch.randn(1, 3, 1)], opsets=OPSETS),
    case("source_one_leading", IndexAdd(1, alpha=2.5), [torch.randn(3, 4, 5), IDX, torch.randn(1, 3, 5)],
         opsets=OPSETS),
    case("source_one_dim0", IndexAdd(0), [torch.randn(4, 6), torch.tensor([3, 1]), torch.randn(2, 1)], opsets=OPSETS),
    case("source_one_int", IndexAdd(1), [torch.randint(-5, 5, (3, 4)), IDX, torch.randint(-5, 5, (1, 3))],
         opsets=OPSETS),
    case("source_one_inplace_last", IndexAddInplace(), [torch.randn(2, 3, 4), IDX, torch.randn(2, 1, 3)],
         opsets=OPSETS),
    case("source_one_in_loop", InLoop(), [torch.randn(2, 4, 3), IDX, torch.randn(1, 3, 3), torch.tensor(3)],
         opsets=OPSETS, method="script",
         more_inputs=[[torch.randn(2, 4, 3), IDX, torch.randn(1, 3, 3), torch.tensor(1)],
                      [torch.randn(2, 4, 3), IDX, torch.randn(1, 3, 3), torch.tensor(0)]]),
    case("source_one_in_branch", InBranch(), [torch.randn(2, 3, 3).abs(), IDX, torch.randn(1, 3, 1)],
         opsets=OPSETS, method="script", more_inputs=[[-torch.randn(2, 3, 3).abs(), IDX, torch.randn(1, 3, 1)]]),
    case("source_one_dynamic", Dynamic(), [torch.randn(2, 4, 5), IDX, torch.randn(1, 3, 1)], opsets=OPSETS,
         cli_args=("--dynamic-axes", "x=0,2"),
         more_inputs=[[torch.randn(5, 4, 2), IDX, torch.randn(1, 3, 1)]]),
    case("source_one_dynamic_script", Dynamic(), [torch.randn(2, 4, 5), IDX, torch.randn(1, 3, 1)], opsets=OPSETS,
         method="script", cli_args=("--dynamic-axes", "x=0,2", "--dynamic-axes", "index=0", "--dynamic-axes",
                                    "source=1"),
         more_inputs=[[torch.randn(5, 4, 2), torch.tensor([3, 1, 0, 3]), torch.randn(1, 4, 1)]]),
]
