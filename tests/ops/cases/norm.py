# Normalizations: batch_norm (eval), layer_norm (decomposed < 17, LayerNormalization at 17),
# group_norm, instance_norm.
import torch
import torch.nn as nn
import torch.nn.functional as F
from op_case import case


def bn(cls, c, **kw):
    m = cls(c, **kw)
    with torch.no_grad():  # non-trivial running statistics and affine parameters
        if m.running_mean is not None:
            m.running_mean.uniform_(-1, 1)
            m.running_var.uniform_(0.5, 2)
        if m.weight is not None:
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-1, 1)
    return m


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class LayerNormNoAffine(nn.Module):
    def forward(self, x):
        return F.layer_norm(x, x.shape[-1:], eps=1e-3)


def ln(shape, **kw):
    m = nn.LayerNorm(shape, **kw)
    if m.weight is not None:
        with torch.no_grad():
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-1, 1)
    return m


def gn(g, c, **kw):
    m = nn.GroupNorm(g, c, **kw)
    if m.weight is not None:
        with torch.no_grad():
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-1, 1)
    return m


LN_OPSETS = (9, 13, 16, 17)

CASES = [
    case("batch_norm1d", bn(nn.BatchNorm1d, 5), [torch.randn(3, 5)]),
    case("batch_norm1d_3d", bn(nn.BatchNorm1d, 5), [torch.randn(3, 5, 7)]),
    case("batch_norm2d", bn(nn.BatchNorm2d, 4), [torch.randn(2, 4, 6, 5)]),
    case("batch_norm2d_noaffine", bn(nn.BatchNorm2d, 4, affine=False), [torch.randn(2, 4, 6, 5)]),
    case("batch_norm2d_script", bn(nn.BatchNorm2d, 4, eps=1e-3), [torch.randn(2, 4, 6, 5)], method="script"),
    case("batch_norm3d", bn(nn.BatchNorm3d, 3), [torch.randn(2, 3, 4, 5, 6)]),
    case("layer_norm_last", ln(8), [torch.randn(2, 3, 8)], opsets=LN_OPSETS),
    case("layer_norm_last2", ln([5, 8], eps=1e-3), [torch.randn(2, 3, 5, 8)], opsets=LN_OPSETS),
    case("layer_norm_noaffine", ln([3, 8], elementwise_affine=False), [torch.randn(2, 3, 8)], opsets=LN_OPSETS),
    case("layer_norm_functional", LayerNormNoAffine(), [torch.randn(4, 6)], opsets=LN_OPSETS),
    case("layer_norm_script", ln(8), [torch.randn(2, 3, 8)], opsets=LN_OPSETS, method="script"),
    case("group_norm", gn(2, 6), [torch.randn(2, 6, 4, 5)]),
    case("group_norm_noaffine", gn(3, 6, affine=False), [torch.randn(2, 6, 7)]),
    case("group_norm_3d", gn(1, 4, eps=1e-3), [torch.randn(2, 4, 3, 4, 5)]),
    case("group_norm_per_channel", gn(4, 4), [torch.randn(3, 4, 9)]),
    # (group_norm scripted keeps F.group_norm's shape check loop: control flow, a host limit)
    case("instance_norm1d", nn.InstanceNorm1d(4), [torch.randn(2, 4, 9)]),
    case("instance_norm2d_affine", bn(nn.InstanceNorm2d, 4, affine=True), [torch.randn(2, 4, 5, 6)]),
    case("instance_norm3d", nn.InstanceNorm3d(3, eps=1e-3), [torch.randn(2, 3, 4, 5, 6)]),
    case("instance_norm2d_running", bn(nn.InstanceNorm2d, 4, affine=True, track_running_stats=True),
         [torch.randn(2, 4, 5, 6)]),
]


class BatchNormTraining(nn.Module):
    """F.batch_norm with training=True: the batch's statistics (the running ones are not read)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(3))
        self.register_buffer("running_var", torch.ones(3))
        self.weight = nn.Parameter(torch.randn(3))
        self.bias = nn.Parameter(torch.randn(3))

    def forward(self, x):
        return F.batch_norm(x, self.running_mean.clone(), self.running_var.clone(), self.weight, self.bias,
                            training=True, eps=1e-3)


# Batch statistics: track_running_stats=False modules (in eval too) and training=True.
CASES += [
    case("batch_norm_no_running_stats_1d", nn.BatchNorm1d(3, track_running_stats=False, affine=False), [torch.randn(4, 3)]),
    case("batch_norm_no_running_stats_2d", nn.BatchNorm2d(3, track_running_stats=False), [torch.randn(2, 3, 4, 4)]),
    case("batch_norm_no_running_stats_3d", nn.BatchNorm3d(3, track_running_stats=False), [torch.randn(2, 3, 2, 3, 4)]),
    case("batch_norm_training", BatchNormTraining(), [torch.randn(2, 3, 5)]),
]
