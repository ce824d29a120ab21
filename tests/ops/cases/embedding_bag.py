# embedding_bag / nn.EmbeddingBag: sum / mean / max, 1-D indices with offsets (constant and
# run-time, include_last_offset, empty bags), 2-D indices, per_sample_weights, padding_idx.
import torch
import torch.nn.functional as F
from op_case import case

W = torch.randn(10, 3)


class Bags(torch.nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw
        self.w = torch.nn.Parameter(W.clone())

    def forward(self, i, o):
        return tuple(F.embedding_bag(i, self.w, o, mode=m, **self.kw) for m in ("sum", "mean", "max"))


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

    def forward(self, i, o, w):
        return self.bag(i, o, per_sample_weights=w)


class BagsScript(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(W.clone())

    def forward(self, i, o):
        return F.embedding_bag(i, self.w, o, mode="mean"), F.embedding_bag(i, self.w, o, mode="max", padding_idx=2)


idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 7])
CASES = [
    case("offsets", Bags(), [idx, torch.tensor([0, 3, 3, 7])]),
    case("include_last_offset", Bags(include_last_offset=True), [idx, torch.tensor([0, 2, 2, 6, 10])]),
    case("padding_idx", Bags(padding_idx=4), [idx, torch.tensor([0, 2, 5])]),
    case("two_d", Bags2d(), [torch.tensor([[1, 2, 4], [2, 2, 2], [9, 0, 7]])]),
    case("weighted", Weighted(), [idx, torch.tensor([0, 4, 6]), torch.rand(10)]),
    case("script", BagsScript(), [idx, torch.tensor([0, 1, 1, 8])], method="script"),
    case("dynamic", Bags(), [idx, torch.tensor([0, 3, 3, 7])], opsets=(11, 13, 17),
         cli_args=("--dynamic-axes", "i=0", "--dynamic-axes", "o=0")),
]
