# embedding_bag / nn.EmbeddingBag: sum / mean / max, 1-D indices with offsets (constant, and
# computed at run time: the offsets are the exclusive cumsum of bag sizes given as an input, since
# the exporter's example run feeds integer inputs as ones), include_last_offset, empty bags,
# 2-D indices, per_sample_weights, padding_idx.
import torch
import torch.nn.functional as F
from op_case import case

W = torch.randn(10, 3)
RUNTIME_OPSETS = (11, 13, 17)  # cumsum of the bag sizes needs opset 11


class Bags(torch.nn.Module):
    """Offsets from bag sizes: exclusive cumsum (include_last_offset: with the total appended)."""

    def __init__(self, **kw):
        super().__init__()
        self.kw = kw
        self.w = torch.nn.Parameter(W.clone())

    def forward(self, i, sizes):
        ends = torch.cumsum(sizes, 0)
        o = torch.cat([torch.zeros(1, dtype=torch.long), ends]) if self.kw.get("include_last_offset") else ends - sizes
        return tuple(F.embedding_bag(i, self.w, o, mode=m, **self.kw) for m in ("sum", "mean", "max"))


class ConstOffsets(torch.nn.Module):
    def __init__(self, offsets, **kw):
        super().__init__()
        self.kw = kw
        self.w = torch.nn.Parameter(W.clone())
        self.register_buffer("o", offsets)

    def forward(self, i):
        return tuple(F.embedding_bag(i, self.w, self.o, mode=m, **self.kw) for m in ("sum", "mean", "max"))


class Bags2d(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(10, 4, mode="mean")
        self.bag_max = torch.nn.EmbeddingBag(10, 4, mode="max", padding_idx=2)

    def forward(self, i):
        return self.bag(i), self.bag_max(i)


class Weighted(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(10, 4, mode="sum", padding_idx=0)
        self.register_buffer("o", torch.tensor([0, 4, 6]))

    def forward(self, i, w):
        return self.bag(i, self.o, per_sample_weights=w)


class BagsScript(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(W.clone())
        self.register_buffer("o", torch.tensor([0, 1, 1, 8]))

    def forward(self, i):
        return F.embedding_bag(i, self.w, self.o, mode="mean"), F.embedding_bag(i, self.w, self.o, mode="max", padding_idx=2)


idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 7])
CASES = [
    case("const_offsets", ConstOffsets(torch.tensor([0, 3, 3, 7])), [idx]),
    case("const_include_last_offset", ConstOffsets(torch.tensor([0, 2, 2, 6, 10]), include_last_offset=True), [idx]),
    case("const_padding_idx", ConstOffsets(torch.tensor([0, 2, 5]), padding_idx=4), [idx]),
    case("runtime_offsets", Bags(), [idx, torch.tensor([3, 0, 4, 3])], opsets=RUNTIME_OPSETS),
    case("runtime_include_last_offset", Bags(include_last_offset=True), [idx, torch.tensor([2, 0, 4, 4])],
         opsets=RUNTIME_OPSETS),
    case("runtime_padding_idx", Bags(padding_idx=4), [idx, torch.tensor([2, 3, 5])], opsets=RUNTIME_OPSETS),
    case("two_d", Bags2d(), [torch.tensor([[1, 2, 4], [2, 2, 2], [9, 0, 7]])]),
    case("weighted", Weighted(), [idx, torch.rand(10)]),
    case("script", BagsScript(), [idx], method="script"),
    case("dynamic", Bags(), [idx, torch.tensor([3, 0, 4, 3])], opsets=RUNTIME_OPSETS,
         cli_args=("--dynamic-axes", "i=0", "--dynamic-axes", "sizes=0")),
]
