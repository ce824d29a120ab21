# topk (TopK: k attribute at 9, k input from 10, largest/sorted from 11), sort, argsort.
import torch
from op_case import Fn, case


class TopKDynamicK(torch.nn.Module):
    def forward(self, x):
        return torch.topk(x, x.size(1) // 2, dim=1)


class SortScript(torch.nn.Module):
    def forward(self, x):
        v, i = torch.sort(x, dim=0, descending=True)
        return v, i, torch.argsort(x, dim=-1), torch.topk(x, 2, largest=False)


class StableScript(torch.nn.Module):
    def forward(self, x):
        v, i = torch.sort(x, stable=True, dim=1)
        return v, i, torch.argsort(x, dim=1, descending=True)


def r(*shape):
    return torch.randn(*shape)


def ties():
    # Many equal values: only stable sorting gives PyTorch's indices.
    return [torch.randint(0, 3, (4, 9)).float()]


TOPK_OPSETS = (9, 10, 11, 13, 17)

CASES = [
    case("topk", Fn(lambda x: torch.topk(x, 3)), [r(4, 7)], opsets=TOPK_OPSETS),
    case("topk_dim0", Fn(lambda x: torch.topk(x, 2, dim=0)), [r(4, 7, 3)], opsets=TOPK_OPSETS),
    case("topk_smallest", Fn(lambda x: torch.topk(x, 2, dim=-1, largest=False)), [r(4, 7)], opsets=TOPK_OPSETS),
    case("topk_int", Fn(lambda x: torch.topk(x, 2)), [torch.randperm(28).reshape(4, 7)], opsets=(11, 13, 17)),
    case("topk_int32_small", Fn(lambda x: torch.topk(x, 2, largest=False)),
         [torch.randperm(28).reshape(4, 7).int()], opsets=(9, 10, 11, 17)),
    case("topk_dynamic_k", TopKDynamicK(), [r(3, 8)], opsets=TOPK_OPSETS),
    case("sort", Fn(lambda x: torch.sort(x)), [r(4, 7)], opsets=TOPK_OPSETS),
    case("sort_desc", Fn(lambda x: torch.sort(x, dim=0, descending=True)), [r(4, 7)], opsets=TOPK_OPSETS),
    case("argsort", Fn(lambda x: torch.argsort(x, dim=1)), [r(4, 7)], opsets=TOPK_OPSETS),
    case("argsort_desc", Fn(lambda x: torch.argsort(x, descending=True)), [r(3, 4, 5)], opsets=TOPK_OPSETS),
    case("sort_script", SortScript(), [r(4, 7)], opsets=TOPK_OPSETS, method="script"),
    # Stable sorting needs TopK-11 (ties broken by the lower index).
    case("sort_stable_ties", Fn(lambda x: torch.sort(x, dim=1, stable=True)), ties(), opsets=(11, 13, 17)),
    case("sort_stable_desc_ties", Fn(lambda x: torch.sort(x, dim=1, descending=True, stable=True)), ties(),
         opsets=(11, 17)),
    case("stable_script", StableScript(), ties(), opsets=(11, 17), method="script"),
]
