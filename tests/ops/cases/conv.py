# Convolutions: Conv / ConvTranspose in every variant (rank, stride, padding ints and strings,
# dilation, groups, output_padding, bias or not, unbatched input).
import torch
import torch.nn as nn
import torch.nn.functional as F
from op_case import case


class Fn(nn.Module):
    def __init__(self, fn, *params):
        super().__init__()
        self.fn = fn
        self.ps = nn.ParameterList([nn.Parameter(p) for p in params])

    def forward(self, x):
        return self.fn(x, *self.ps)


x1 = torch.randn(2, 4, 11)
x2 = torch.randn(2, 4, 9, 10)
x3 = torch.randn(1, 4, 5, 6, 7)

CASES = [
    case("conv1d", nn.Conv1d(4, 6, 3), [x1]),
    case("conv1d_stride_pad_dil", nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2), [x1]),
    case("conv1d_groups_nobias", nn.Conv1d(4, 8, 3, groups=4, bias=False), [x1]),
    case("conv1d_same", nn.Conv1d(4, 6, 4, padding="same", dilation=1), [x1]),
    case("conv1d_same_dil", nn.Conv1d(4, 6, 3, padding="same", dilation=3), [x1]),
    case("conv1d_valid", nn.Conv1d(4, 6, 3, padding="valid"), [x1]),
    case("conv1d_unbatched", nn.Conv1d(4, 6, 3, padding=1), [torch.randn(4, 11)]),
    case("conv2d", nn.Conv2d(4, 6, 3), [x2]),
    case("conv2d_rect", nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2)), [x2]),
    case("conv2d_groups", nn.Conv2d(4, 6, 3, groups=2, padding=1), [x2]),
    case("conv2d_depthwise", nn.Conv2d(4, 4, 3, groups=4, stride=2), [x2]),
    case("conv2d_same_even", nn.Conv2d(4, 6, (4, 2), padding="same"), [x2]),
    case("conv2d_same_script", nn.Conv2d(4, 6, 3, padding="same", dilation=2), [x2], method="script"),
    case("conv2d_valid", nn.Conv2d(4, 6, 3, padding="valid", stride=2), [x2]),
    case("conv2d_script", nn.Conv2d(4, 6, 3, stride=2, padding=1), [x2], method="script"),
    case("conv2d_unbatched", nn.Conv2d(4, 6, 3), [torch.randn(4, 9, 10)]),
    case("conv2d_functional", Fn(lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1, groups=2),
                                 torch.randn(6, 2, 3, 3), torch.randn(6)), [x2]),
    case("conv3d", nn.Conv3d(4, 2, 3, padding=1), [x3]),
    case("conv3d_stride_groups", nn.Conv3d(4, 4, (2, 3, 3), stride=(1, 2, 2), groups=2, dilation=(2, 1, 1)), [x3]),
    case("conv3d_same", nn.Conv3d(4, 2, 2, padding="same"), [x3]),
    case("convt1d", nn.ConvTranspose1d(4, 6, 3), [x1]),
    case("convt1d_stride_outpad", nn.ConvTranspose1d(4, 6, 3, stride=3, padding=1, output_padding=2), [x1]),
    case("convt1d_groups_dil", nn.ConvTranspose1d(4, 6, 3, stride=2, groups=2, dilation=2, bias=False), [x1]),
    case("convt2d", nn.ConvTranspose2d(4, 6, 3), [x2]),
    case("convt2d_stride_outpad", nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1), [x2]),
    case("convt2d_rect", nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 3), padding=(0, 1), output_padding=(1, 2),
                                            dilation=(1, 2)), [x2]),
    case("convt2d_groups", nn.ConvTranspose2d(4, 8, 3, stride=2, groups=4), [x2]),
    case("convt2d_unbatched", nn.ConvTranspose2d(4, 6, 3, stride=2), [torch.randn(4, 9, 10)]),
    case("convt2d_functional", Fn(lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1,
                                                                  groups=2, dilation=2),
                                  torch.randn(4, 3, 3, 3)), [x2]),
    case("convt3d", nn.ConvTranspose3d(4, 2, 3, stride=2, padding=1, output_padding=1), [x3]),
]
