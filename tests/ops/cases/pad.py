# Padding: F.pad constant / reflect / replicate / circular (aten::pad), nn.ConstantPadNd,
# ReflectionPadNd, ReplicationPadNd -> Pad (attributes at 9, inputs from 11).
import torch
import torch.nn as nn
import torch.nn.functional as F
from op_case import case


class Pad(nn.Module):
    def __init__(self, pad, **kw):
        super().__init__()
        self.pad = pad
        self.kw = kw

    def forward(self, x):
        return F.pad(x, self.pad, **self.kw)


class PadFromSize(nn.Module):
    def forward(self, x):
        return F.pad(x, (1, x.size(3) - 3, x.size(2) - 3, 0), value=2.0)


x2 = torch.randn(2, 3, 5, 6)
OPS = (9, 11, 13, 17)

CASES = [
    case("constant", Pad((1, 2, 3, 4), value=1.5), [x2], opsets=OPS),
    case("constant_last", Pad((2, 1)), [x2], opsets=OPS),
    case("constant_all_dims", Pad((1, 1, 0, 2, 1, 0, 2, 1)), [x2], opsets=OPS),
    case("constant_negative", Pad((-1, 2, 0, -2)), [x2], opsets=OPS),
    case("constant_int", Pad((1, 2), value=7), [torch.randint(0, 9, (3, 4))], opsets=OPS),
    case("constant_module", nn.ConstantPad2d((1, 0, 2, 3), -0.5), [x2], opsets=OPS),
    case("constant_script", nn.ConstantPad1d(2, 3.0), [torch.randn(2, 3, 5)], opsets=OPS, method="script"),
    case("reflect1d", Pad((2, 3), mode="reflect"), [torch.randn(2, 3, 6)], opsets=OPS),
    case("reflect2d", nn.ReflectionPad2d((1, 2, 3, 0)), [x2], opsets=OPS),
    case("reflect2d_script", nn.ReflectionPad2d(2), [x2], opsets=OPS, method="script"),
    case("reflect3d", Pad((1, 1, 2, 0, 1, 2), mode="reflect"), [torch.randn(1, 2, 4, 5, 3)], opsets=OPS),
    case("replicate1d", nn.ReplicationPad1d((3, 1)), [torch.randn(2, 3, 6)], opsets=OPS),
    case("replicate2d", Pad((2, 2, 1, 3), mode="replicate"), [x2], opsets=OPS),
    case("replicate3d", nn.ReplicationPad3d(1), [torch.randn(1, 2, 4, 5, 3)], opsets=OPS),
    case("circular1d", Pad((2, 1), mode="circular"), [torch.randn(2, 3, 6)], opsets=OPS),
    case("circular2d", Pad((1, 2, 3, 0), mode="circular"), [x2], opsets=OPS),
    case("size_dependent", PadFromSize(), [x2], opsets=OPS),
    case("dynamic_pads", PadFromSize(), [x2], opsets=(11, 13, 17), cli_args=("--dynamic-axes", "x=2,3")),
]
