# Pooling: max/avg pooling 1d/2d/3d (stride, padding, ceil_mode, count_include_pad, dilation,
# divisor_override), adaptive avg/max pooling (global, divisible, uneven windows, None sizes),
# max pooling with indices (per-plane numbering) and max_unpool (Scatter < 11, ScatterElements).
import torch
import torch.nn as nn
import torch.nn.functional as F
from op_case import case


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class PoolUnpool(nn.Module):
    def __init__(self, pool, unpool, output_size=False):
        super().__init__()
        self.pool = pool
        self.unpool = unpool
        self.output_size = output_size

    def forward(self, x):
        y, i = self.pool(x)
        if self.output_size:
            return self.unpool(y, i, output_size=x.shape[-2:])
        return self.unpool(y, i)


x1 = torch.randn(2, 3, 11)
x2 = torch.randn(2, 3, 9, 10)
x3 = torch.randn(1, 2, 5, 6, 7)

CASES = [
    case("max_pool1d", nn.MaxPool1d(3), [x1]),
    case("max_pool1d_stride_pad", nn.MaxPool1d(4, stride=2, padding=2), [x1]),
    case("max_pool1d_ceil", nn.MaxPool1d(3, stride=2, ceil_mode=True), [x1]),
    case("max_pool1d_dilation", nn.MaxPool1d(3, stride=1, dilation=2), [x1], opsets=(10, 13, 17)),
    case("max_pool2d", nn.MaxPool2d(2), [x2]),
    case("max_pool2d_rect", nn.MaxPool2d((3, 2), stride=(2, 1), padding=(1, 0)), [x2]),
    case("max_pool2d_ceil_pad", nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), [x2]),
    case("max_pool2d_dilation", nn.MaxPool2d(3, stride=2, padding=1, dilation=2), [x2], opsets=(10, 13, 17)),
    case("max_pool2d_dilation_ceil", nn.MaxPool2d(2, stride=2, dilation=(2, 1), ceil_mode=True), [x2],
         opsets=(10, 13, 17)),
    case("max_pool2d_unbatched", nn.MaxPool2d(2), [torch.randn(3, 8, 6)]),
    case("max_pool2d_script", nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), [x2], method="script"),
    case("max_pool3d", nn.MaxPool3d(2, stride=(1, 2, 2), padding=(1, 0, 1)), [x3]),
    # return_indices=True: aten::max_poolNd_with_indices
    case("max_pool1d_indices", Fn(lambda x: F.max_pool1d(x, 3, stride=2, padding=1, return_indices=True)), [x1]),
    case("max_pool2d_indices", nn.MaxPool2d(2, return_indices=True), [x2]),
    case("max_pool2d_indices_pad_ceil", nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True, return_indices=True),
         [x2]),
    case("max_pool2d_indices_dilation", nn.MaxPool2d(2, stride=1, dilation=2, return_indices=True), [x2],
         opsets=(10, 13, 17)),
    case("max_pool2d_indices_unbatched", nn.MaxPool2d((2, 3), return_indices=True), [torch.randn(3, 8, 7)]),
    case("max_pool2d_indices_script", nn.MaxPool2d(3, stride=2, return_indices=True), [x2], method="script"),
    case("max_pool2d_indices_dynamic", nn.MaxPool2d(3, stride=2, padding=1, return_indices=True), [x2],
         cli_args=("--dynamic-axes", "input=0,2,3")),
    case("max_pool3d_indices", nn.MaxPool3d(2, stride=(1, 2, 2), padding=(1, 0, 1), return_indices=True), [x3]),
    # max_unpool: Scatter up to 10, ScatterElements from 11
    case("max_unpool1d", PoolUnpool(nn.MaxPool1d(2, return_indices=True), nn.MaxUnpool1d(2)), [x1],
         opsets=(9, 11, 13, 17)),
    case("max_unpool2d", PoolUnpool(nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)), [x2],
         opsets=(9, 11, 13, 17)),
    case("max_unpool2d_dynamic", PoolUnpool(nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)), [x2],
         opsets=(9, 11, 17), cli_args=("--dynamic-axes", "x=0,1")),
    case("max_unpool2d_output_size", PoolUnpool(nn.MaxPool2d(3, return_indices=True), nn.MaxUnpool2d(3), True),
         [torch.randn(2, 3, 10, 11)], opsets=(9, 11, 13, 17)),
    case("max_unpool2d_unbatched", PoolUnpool(nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)),
         [torch.randn(3, 8, 6)], opsets=(9, 11, 17)),
    case("max_unpool3d", PoolUnpool(nn.MaxPool3d(2, return_indices=True), nn.MaxUnpool3d(2)),
         [torch.randn(1, 2, 4, 6, 4)], opsets=(9, 11, 17)),
    case("avg_pool1d", nn.AvgPool1d(3), [x1]),
    case("avg_pool1d_pad_nocount", nn.AvgPool1d(4, stride=2, padding=2, count_include_pad=False), [x1]),
    case("avg_pool1d_ceil", nn.AvgPool1d(3, stride=2, ceil_mode=True), [x1]),
    case("avg_pool2d", nn.AvgPool2d(2), [x2]),
    case("avg_pool2d_pad_count", nn.AvgPool2d(3, stride=2, padding=1), [x2]),
    case("avg_pool2d_pad_nocount", nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), [x2]),
    case("avg_pool2d_ceil_count", nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True), [x2]),
    case("avg_pool2d_ceil_nocount", nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
         [x2]),
    case("avg_pool2d_ceil_nopad", nn.AvgPool2d(2, ceil_mode=True), [x2]),
    case("avg_pool2d_divisor", nn.AvgPool2d(3, stride=2, padding=1, divisor_override=5), [x2]),
    case("avg_pool2d_script", nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), [x2], method="script"),
    case("avg_pool3d", nn.AvgPool3d((2, 3, 3), stride=2, padding=1), [x3]),
    case("adaptive_avg_pool1d", nn.AdaptiveAvgPool1d(1), [x1]),
    case("adaptive_avg_pool1d_uneven", nn.AdaptiveAvgPool1d(4), [x1]),
    case("adaptive_avg_pool2d_global", nn.AdaptiveAvgPool2d(1), [x2]),
    case("adaptive_avg_pool2d_div", nn.AdaptiveAvgPool2d((3, 5)), [x2]),
    case("adaptive_avg_pool2d_uneven", nn.AdaptiveAvgPool2d((4, 3)), [x2]),
    case("adaptive_avg_pool2d_none", nn.AdaptiveAvgPool2d((None, 4)), [x2]),
    case("adaptive_avg_pool2d_script", nn.AdaptiveAvgPool2d((4, 3)), [x2], method="script"),
    case("adaptive_avg_pool3d", nn.AdaptiveAvgPool3d((1, 2, 3)), [x3]),
    case("adaptive_max_pool1d", nn.AdaptiveMaxPool1d(3), [x1]),
    case("adaptive_max_pool2d_global", nn.AdaptiveMaxPool2d(1), [x2]),
    case("adaptive_max_pool2d_uneven", nn.AdaptiveMaxPool2d((2, 4)), [x2]),
    case("adaptive_max_pool2d_unbatched", nn.AdaptiveMaxPool2d((3, 5)), [torch.randn(3, 9, 10)]),
    case("adaptive_max_pool3d", nn.AdaptiveMaxPool3d((5, 3, 7)), [x3]),
]
