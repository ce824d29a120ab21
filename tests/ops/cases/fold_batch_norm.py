# BatchNorm folded into the layer before it (core/src/prepare/fold_batch_norm.cpp, torch.onnx's
# do_constant_folding): the values must stay PyTorch's. tests/patterns checks which exports still hold
# a BatchNormalization node: none in the folded cases, one in each nofold_* case (a BN that cannot
# be folded exactly), and every case with --no-constant-folding.
import torch
import torch.nn as nn
from op_case import case


def bn(cls, c, affine=True):
    m = cls(c, affine=affine)
    with torch.no_grad():  # non-trivial statistics and affine parameters
        m.running_mean.uniform_(-1, 1)
        m.running_var.uniform_(0.25, 4)
        if affine:
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-1, 1)
    return m


class Seq(nn.Module):
    def __init__(self, *layers):
        super().__init__()
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


class TwoUses(nn.Module):
    """The convolution's output is read twice: folding the BN into it would change the other read."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = bn(nn.BatchNorm2d, 4)

    def forward(self, x):
        y = self.conv(x)
        return self.bn(y) + y


class LinearSeqBn(nn.Module):
    """Linear on [N, L, F] then BatchNorm1d(L): the BN's channels are L, not the linear's features."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(6, 5)
        self.bn = bn(nn.BatchNorm1d, 4)

    def forward(self, x):
        return self.bn(self.linear(x))


x2d = torch.randn(2, 3, 10, 10)
CASES = [
    case("conv2d_bn", Seq(nn.Conv2d(3, 8, 3, padding=1), bn(nn.BatchNorm2d, 8)), [x2d], opsets=(9, 17)),
    case("conv2d_bn_script", Seq(nn.Conv2d(3, 8, 3, padding=1), bn(nn.BatchNorm2d, 8)), [x2d], opsets=(17,),
         method="script"),
    case("conv2d_nobias_bn_relu", Seq(nn.Conv2d(3, 8, 3, bias=False), bn(nn.BatchNorm2d, 8), nn.ReLU()), [x2d],
         opsets=(17,)),
    case("conv2d_groups_bn", Seq(nn.Conv2d(4, 8, 3, groups=2), bn(nn.BatchNorm2d, 8)), [torch.randn(2, 4, 9, 9)],
         opsets=(17,)),
    case("conv2d_bn_noaffine", Seq(nn.Conv2d(3, 5, 1), bn(nn.BatchNorm2d, 5, affine=False)), [x2d], opsets=(17,)),
    case("conv1d_bn", Seq(nn.Conv1d(3, 6, 3), bn(nn.BatchNorm1d, 6)), [torch.randn(2, 3, 12)], opsets=(17,)),
    case("conv3d_bn", Seq(nn.Conv3d(2, 4, 3), bn(nn.BatchNorm3d, 4)), [torch.randn(1, 2, 5, 6, 6)], opsets=(17,)),
    case("conv_transpose2d_bn", Seq(nn.ConvTranspose2d(3, 6, 3, stride=2), bn(nn.BatchNorm2d, 6)), [x2d],
         opsets=(9, 17)),
    case("conv_transpose2d_groups_bn", Seq(nn.ConvTranspose2d(4, 6, 3, groups=2), bn(nn.BatchNorm2d, 6)),
         [torch.randn(2, 4, 7, 7)], opsets=(17,)),
    case("conv_transpose1d_bn_script", Seq(nn.ConvTranspose1d(3, 5, 2), bn(nn.BatchNorm1d, 5)),
         [torch.randn(2, 3, 8)], opsets=(17,), method="script"),
    case("linear_bn1d", Seq(nn.Linear(7, 5), bn(nn.BatchNorm1d, 5)), [torch.randn(4, 7)], opsets=(9, 13, 17)),
    case("linear_nobias_bn1d", Seq(nn.Linear(7, 5, bias=False), bn(nn.BatchNorm1d, 5)), [torch.randn(4, 7)],
         opsets=(17,)),
    # Folded weights of 1 MiB and more are computed while the file is written, a few MiB of rows at a
    # time (common/deferred_tensors.hpp): these span several such blocks, the transposed one with
    # blocks that end inside a group.
    case("conv2d_bn_large", Seq(nn.Conv2d(512, 512, 3, padding=1), bn(nn.BatchNorm2d, 512)),
         [torch.randn(1, 512, 5, 5)], opsets=(17,)),
    case("conv_transpose2d_groups_bn_large", Seq(nn.ConvTranspose2d(1024, 512, 3, groups=4), bn(nn.BatchNorm2d, 512)),
         [torch.randn(1, 1024, 3, 3)], opsets=(17,)),
    case("linear_bn1d_large", Seq(nn.Linear(1024, 512), bn(nn.BatchNorm1d, 512)), [torch.randn(3, 1024)],
         opsets=(17,)),
    case("nofold_two_uses", TwoUses(), [x2d], opsets=(17,)),
    case("nofold_linear_3d", LinearSeqBn(), [torch.randn(3, 4, 6)], opsets=(17,)),
]
