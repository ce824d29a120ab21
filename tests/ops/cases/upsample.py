# Interpolation: aten::upsample_* -> Upsample (9), Resize with scales (10), Resize (11+), and the
# exact static-shape forms before 11 (Gather for nearest, MatMul for linear).
import torch
import torch.nn as nn
import torch.nn.functional as F
from op_case import case


class Interp(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw

    def forward(self, x):
        return F.interpolate(x, **self.kw)


class SizeFromInput(nn.Module):
    def __init__(self, mode, **kw):
        super().__init__()
        self.mode = mode
        self.kw = kw

    def forward(self, x):
        return F.interpolate(x, size=(x.size(2) * 2, x.size(3) + 3), mode=self.mode, **self.kw)


x1 = torch.randn(2, 3, 7)
x2 = torch.randn(2, 3, 5, 6)
x3 = torch.randn(1, 2, 3, 4, 5)
ALL = (9, 10, 11, 13, 17)
NEW = (11, 13, 17)
DYN = ("--dynamic-axes", "x=2,3")

CASES = [
    case("nearest1d_scale", Interp(scale_factor=2, mode="nearest"), [x1], opsets=ALL),
    case("nearest1d_size_down", Interp(size=5, mode="nearest"), [x1], opsets=ALL),
    case("nearest2d_scale", Interp(scale_factor=2, mode="nearest"), [x2], opsets=ALL),
    case("nearest2d_scale_mixed", Interp(scale_factor=(3, 2), mode="nearest"), [x2], opsets=ALL),
    case("nearest2d_scale_frac", Interp(scale_factor=1.5, mode="nearest"), [x2], opsets=ALL),
    case("nearest2d_scale_down", Interp(scale_factor=0.5, mode="nearest"), [torch.randn(1, 2, 8, 6)], opsets=ALL),
    case("nearest2d_size_mult", Interp(size=(10, 18), mode="nearest"), [x2], opsets=ALL),
    case("nearest2d_size_odd", Interp(size=(7, 4), mode="nearest"), [x2], opsets=ALL),
    case("nearest2d_module", nn.Upsample(scale_factor=2), [x2], opsets=ALL),
    case("nearest2d_recompute", Interp(scale_factor=1.7, mode="nearest", recompute_scale_factor=True), [x2],
         opsets=ALL),
    case("nearest2d_dynamic_scale", Interp(scale_factor=2, mode="nearest"), [x2], opsets=ALL, cli_args=DYN),
    case("nearest2d_dynamic_size", SizeFromInput("nearest"), [x2], opsets=NEW, cli_args=DYN),
    case("nearest2d_size_from_input", SizeFromInput("nearest"), [x2], opsets=ALL),
    case("nearest3d_scale", Interp(scale_factor=2, mode="nearest"), [x3], opsets=ALL),
    case("nearest3d_size", Interp(size=(4, 6, 3), mode="nearest"), [x3], opsets=ALL),
    case("nearest_exact2d", Interp(size=(7, 4), mode="nearest-exact"), [x2], opsets=ALL),
    case("nearest_exact2d_scale", Interp(scale_factor=3, mode="nearest-exact"), [x2], opsets=ALL),
    case("nearest_exact1d", Interp(size=11, mode="nearest-exact"), [x1], opsets=ALL),
    case("linear1d", Interp(scale_factor=2, mode="linear"), [x1], opsets=ALL),
    case("linear1d_align", Interp(size=12, mode="linear", align_corners=True), [x1], opsets=ALL),
    case("bilinear_scale", Interp(scale_factor=2, mode="bilinear"), [x2], opsets=ALL),
    case("bilinear_scale_align", Interp(scale_factor=2, mode="bilinear", align_corners=True), [x2], opsets=ALL),
    case("bilinear_size", Interp(size=(9, 4), mode="bilinear"), [x2], opsets=ALL),
    case("bilinear_size_align", Interp(size=(9, 4), mode="bilinear", align_corners=True), [x2], opsets=ALL),
    case("bilinear_scale_frac", Interp(scale_factor=(1.5, 0.5), mode="bilinear"), [x2], opsets=ALL),
    case("bilinear_module", nn.UpsamplingBilinear2d(scale_factor=2), [x2], opsets=ALL),
    case("bilinear_dynamic_size", SizeFromInput("bilinear", align_corners=False), [x2], opsets=NEW, cli_args=DYN),
    case("bilinear_dynamic_scale", Interp(scale_factor=2, mode="bilinear"), [x2], opsets=NEW, cli_args=DYN),
    case("bicubic_scale", Interp(scale_factor=2, mode="bicubic"), [x2], opsets=NEW),
    case("bicubic_size_align", Interp(size=(8, 9), mode="bicubic", align_corners=True), [x2], opsets=NEW),
    # half-pixel (align_corners=False) and align_corners=True, 1-D and 3-D: MatMul before 11, Resize after
    case("trilinear_scale", Interp(scale_factor=2, mode="trilinear"), [x3], opsets=ALL),
    case("trilinear_size_align", Interp(size=(5, 3, 7), mode="trilinear", align_corners=True), [x3], opsets=ALL),
    case("trilinear_size", Interp(size=(4, 5, 7), mode="trilinear"), [x3], opsets=ALL),
    case("trilinear_scale_frac", Interp(scale_factor=(1.5, 0.5, 2.0), mode="trilinear"), [torch.randn(2, 2, 4, 4, 5)],
         opsets=ALL),
    case("linear1d_scale_frac", Interp(scale_factor=2.5, mode="linear"), [x1], opsets=ALL),
    case("linear1d_size_down", Interp(size=3, mode="linear"), [x1], opsets=ALL),
    # An output length of 1 samples the input's centre in PyTorch (half-pixel without ONNX's
    # pytorch_half_pixel special case, which samples 0); with align_corners, index 0.
    case("linear1d_to_one", Interp(size=1, mode="linear"), [x1], opsets=ALL),
    case("bilinear_to_one_row", Interp(size=(1, 4), mode="bilinear"), [x2], opsets=ALL),
    case("bilinear_to_one_align", Interp(size=(1, 1), mode="bilinear", align_corners=True), [x2], opsets=ALL),
    case("bicubic_to_one", Interp(size=(1, 3), mode="bicubic"), [x2], opsets=NEW),
    case("trilinear_to_one", Interp(size=(1, 2, 1), mode="trilinear"), [x3], opsets=ALL),
]
