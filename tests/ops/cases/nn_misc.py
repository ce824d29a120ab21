# pixel_shuffle / pixel_unshuffle, embedding, dropout in eval, grid_sample.
import torch
import torch.nn as nn
import torch.nn.functional as F
from op_case import Fn, case


class EmbedSum(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(10, 4, padding_idx=0)

    def forward(self, idx):
        return self.e(idx) * 2


class GridSample(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw

    def forward(self, x, grid):
        return F.grid_sample(x, grid, **self.kw)


class DropMix(nn.Module):
    def __init__(self):
        super().__init__()
        self.d = nn.Dropout(0.3)
        self.d2 = nn.Dropout2d(0.2)
        self.a = nn.AlphaDropout(0.1)

    def forward(self, x):
        return self.a(self.d2(self.d(x))) + F.dropout(x, 0.5, training=False)


x4 = torch.randn(2, 8, 3, 5)
grid = torch.rand(2, 4, 6, 2) * 2.4 - 1.2  # some points outside [-1, 1]
GS = (16, 17)

CASES = [
    case("pixel_shuffle", nn.PixelShuffle(2), [x4], opsets=(9, 11, 13, 17)),
    case("pixel_shuffle_unbatched", nn.PixelShuffle(2), [torch.randn(8, 3, 5)], opsets=(9, 11, 13, 17)),
    case("pixel_shuffle_r3", nn.PixelShuffle(3), [torch.randn(1, 18, 2, 4)], opsets=(9, 11, 17)),
    case("pixel_shuffle_dynamic", nn.PixelShuffle(2), [x4], opsets=(9, 11, 17),
         cli_args=("--dynamic-axes", "input=0,2,3")),
    case("pixel_unshuffle", nn.PixelUnshuffle(2), [torch.randn(2, 3, 6, 4)], opsets=(9, 13, 17)),
    case("pixel_unshuffle_dynamic", nn.PixelUnshuffle(2), [torch.randn(2, 3, 6, 4)], opsets=(9, 17),
         cli_args=("--dynamic-axes", "input=0,1")),
    case("embedding", EmbedSum(), [torch.tensor([[1, 0, 3], [9, 4, 4]])]),
    case("embedding_script", EmbedSum(), [torch.tensor([1, 0, 3, 7])], method="script"),
    case("embedding_functional", Fn(lambda i: F.embedding(i, torch.arange(12.).view(6, 2))), [torch.tensor([5, 0, 2])]),
    case("dropout_eval", DropMix(), [torch.randn(2, 3, 4, 5)]),
    case("dropout_eval_script", DropMix(), [torch.randn(2, 3, 4, 5)], method="script"),
    case("grid_sample_bilinear", GridSample(align_corners=False), [x4, grid], opsets=GS),
    case("grid_sample_bilinear_align", GridSample(align_corners=True), [x4, grid], opsets=GS),
    case("grid_sample_nearest_border", GridSample(mode="nearest", padding_mode="border", align_corners=False),
         [x4, grid], opsets=GS),
    case("grid_sample_reflection", GridSample(padding_mode="reflection", align_corners=True), [x4, grid], opsets=GS),
    case("grid_sample_reflection_noalign", GridSample(padding_mode="reflection", align_corners=False), [x4, grid],
         opsets=GS),
    case("grid_sample_bicubic", GridSample(mode="bicubic", align_corners=False), [x4, grid], opsets=GS),
]
