# (Named torchvision_ops, not torchvision: a family module must not shadow the torchvision package.)
# torchvision's C++ ops (plugins/torchvision): nms (NonMaxSuppression from 10), roi_align
# (RoiAlign from 10; aligned=True / half_pixel from 16), roi_pool (MaxRoiPool), ps_roi_align
# (RoiAlign half_pixel + a gather of the position-sensitive bins, from 16), ps_roi_pool (bin means
# from an integral image, from 11: CumSum). deform_conv2d needs
# opset 19 (tests/detection checks the refusal below it).
import torch
import torchvision
from op_case import Fn, case


def boxes(n, extent=40.0, min_size=0.5):
    xy = torch.rand(n, 2) * extent
    wh = torch.rand(n, 2) * extent / 2 + min_size
    return torch.cat([xy, xy + wh], dim=1)


def rois(k, batches, extent):
    b = boxes(k, extent)
    index = torch.randint(0, batches, (k, 1)).float()
    return torch.cat([index, b], dim=1)


def tiny_rois():
    # Rois smaller than one pixel after scaling: aligned=False stretches them to 1x1, aligned=True does not.
    return torch.tensor([[0.0, 3.0, 4.0, 3.4, 4.2], [1.0, 10.0, 2.0, 10.5, 2.5], [0.0, 0.0, 0.0, 0.0, 0.0]])


def image(batches=2, channels=4, h=16, w=20):
    return torch.randn(batches, channels, h, w)


CASES = [
    # Distinct scores (random): PyTorch's order is defined.
    case("nms", Fn(lambda b, s: torchvision.ops.nms(b, s, 0.5)), [boxes(40), torch.rand(40)], opsets=(10, 11, 17)),
    case("nms_low_threshold", Fn(lambda b, s: torchvision.ops.nms(b, s, 0.1)), [boxes(30), torch.rand(30)],
         opsets=(11, 17)),
    case("nms_keep_all", Fn(lambda b, s: torchvision.ops.nms(b, s, 1.0)), [boxes(12), torch.rand(12)],
         opsets=(11,)),
    # batched_nms's coordinate trick, as detection models trace it (without its empty-input branch).
    case("batched_nms", Fn(lambda b, s, i: torchvision.ops.nms(b + (i.to(b) * (b.max() + 1))[:, None], s, 0.4)),
         [boxes(30), torch.rand(30), torch.randint(0, 3, (30,))], opsets=(11, 17)),
    case("roi_align", Fn(lambda x, r: torchvision.ops.roi_align(x, r, (3, 2), 0.5, 2, False)),
         [image(), rois(7, 2, 40.0)], opsets=(10, 11, 16, 17)),
    case("roi_align_adaptive", Fn(lambda x, r: torchvision.ops.roi_align(x, r, (2, 2), 0.5, -1, False)),
         [image(), rois(6, 2, 40.0)], opsets=(10, 16, 17)),
    case("roi_align_tiny", Fn(lambda x, r: torchvision.ops.roi_align(x, r, (2, 3), 1.0, 2, False)),
         [image(), tiny_rois()], opsets=(10, 16)),
    case("roi_align_aligned", Fn(lambda x, r: torchvision.ops.roi_align(x, r, (3, 3), 0.5, 2, True)),
         [image(), rois(7, 2, 40.0)], opsets=(16, 17)),
    case("roi_align_aligned_tiny", Fn(lambda x, r: torchvision.ops.roi_align(x, r, (2, 2), 1.0, 0, True)),
         [image(), tiny_rois()], opsets=(16,)),
    case("roi_pool", Fn(lambda x, r: torchvision.ops.roi_pool(x, r, (3, 3), 0.5)),
         [image(), rois(7, 2, 40.0)], opsets=(9, 11, 17)),
    case("roi_pool_tiny", Fn(lambda x, r: torchvision.ops.roi_pool(x, r, (2, 2), 1.0)),
         [image(), tiny_rois()], opsets=(11,)),
    case("ps_roi_align", Fn(lambda x, r: torchvision.ops.ps_roi_align(x, r, (2, 3), 0.5, 2)),
         [image(channels=12), rois(5, 2, 40.0)], opsets=(16, 17)),
    case("ps_roi_align_adaptive", Fn(lambda x, r: torchvision.ops.ps_roi_align(x, r, (2, 2), 0.5, -1)),
         [image(channels=8), rois(5, 2, 40.0)], opsets=(16,)),
    # Corners that scale to exact halves (round half away from zero: 0.5 -> 1, 2.5 -> 3, not to even),
    # rois past the image's edges (bins clamped, some empty) and degenerate ones.
    case("ps_roi_pool", Fn(lambda x, r: torchvision.ops.ps_roi_pool(x, r, (2, 3), 0.5)),
         [image(channels=12), rois(6, 2, 40.0)], opsets=(11, 17)),
    case("ps_roi_pool_edges", Fn(lambda x, r: torchvision.ops.ps_roi_pool(x, r, (3, 3), 0.5)),
         [image(channels=18, h=9, w=11),
          torch.tensor([[0.0, 1.0, 5.0, 9.0, 13.0], [1.0, -6.0, -3.0, 30.0, 25.0], [0.0, 18.0, 14.0, 40.0, 40.0],
                        [1.0, 3.0, 3.0, 3.0, 3.0], [0.0, 7.0, 2.0, 6.0, 1.0]])], opsets=(11,)),
    case("ps_roi_pool_float64", Fn(lambda x, r: torchvision.ops.ps_roi_pool(x, r, 2, 0.25)),
         [image(channels=8, h=12, w=10).double(), rois(4, 2, 40.0).double()], opsets=(11,)),
]

# Ops the detection models need besides torchvision's (plugins/opset9).


class WhereNonzero(torch.nn.Module):
    def forward(self, x):
        rows, cols = torch.where(x > 0.3)
        return rows, cols, torch.where(x.flatten() > 0.5)[0]


class ShapeAsTensor(torch.nn.Module):
    def forward(self, x):
        return torch._shape_as_tensor(x) * 2


CASES += [
    case("where_condition_only", WhereNonzero(), [torch.rand(5, 7)], opsets=(9, 17)),
    case("shape_as_tensor", ShapeAsTensor(), [torch.rand(2, 3, 5)], opsets=(9, 17),
         cli_args=("--dynamic-axes", "x=1")),
]


class SplitRuntimeSizes(torch.nn.Module):
    # Sizes from the input's shape (as torchvision's RPN splits objectness per feature level).
    def forward(self, x):
        n = x.size(1)
        a, b, c = x.split([n // 4, n // 2, n - n // 4 - n // 2], 1)
        return a * 2, b + 1, c


CASES += [
    case("split_runtime_sizes", SplitRuntimeSizes(), [torch.rand(2, 11, 3)], opsets=(11, 13, 17),
         cli_args=("--dynamic-axes", "x=1")),
]
