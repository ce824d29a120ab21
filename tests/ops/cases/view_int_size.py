# aten::view with a single int as its size. A traced view(dtype) is saved by torch 1.13 as
# torch.view(x, <dtype number>), which loads as view(size=[number]): PyTorch then reshapes (here
# torch.int32 = 3 on a 3-element tensor), and so must the export (common/reshape.hpp).
import torch
from op_case import case

torch.manual_seed(0)


class ViewDtypeTraced(torch.nn.Module):
    def forward(self, x):
        return x.view(torch.int32)


CASES = [
    case("traced_view_dtype_loads_as_reshape", ViewDtypeTraced(), [torch.randn(1, 3)], opsets=(9, 17, 26)),
]
