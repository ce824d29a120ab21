# Creation: arange (1/2/3 args, int and float, static and run-time bounds), zeros/ones/full, their
# _like forms, new_*, empty_like + fill_, sizes taken from another tensor.
import torch
from op_case import Fn, case


class ArangeSize(torch.nn.Module):
    def forward(self, x):
        return torch.arange(x.size(1)) + x, torch.arange(1, x.size(0) + 1, 2)


class ArangeScript(torch.nn.Module):
    def forward(self, x):
        n = x.size(1)
        return torch.arange(n), torch.arange(0.5, n, 0.25), torch.arange(n, 0, -2)


class ArangeRuntime(torch.nn.Module):
    # The bound is data: a run-time int (needs Range, opset 11).
    def forward(self, n):
        k = int(n.shape[0]) + int(n.sum())
        return torch.arange(k), torch.arange(2, k + 5, 3, dtype=torch.float32)


class ZerosRuntime(torch.nn.Module):
    def forward(self, n, x):
        k = int(n.sum()) + 2
        return torch.zeros(k, x.size(0)), torch.full([k], 2.5), x.new_ones(k)


class FullScript(torch.nn.Module):
    def forward(self, x):
        return torch.zeros(x.size()), torch.ones(x.size(0), 2, dtype=torch.int64), torch.full_like(x, 7), \
            torch.empty_like(x).fill_(3.0), x.new_zeros(x.size(1), 2), torch.zeros_like(x).zero_()


X = torch.randn(3, 5)

CASES = [
    case("arange_const", Fn(lambda a: (torch.arange(5) + a.sum().long() * 0 if False else torch.arange(5),
                                       torch.arange(2, 10), torch.arange(1, 10, 3), torch.arange(10, 0, -3),
                                       torch.arange(0, 1, 0.1), torch.arange(5, dtype=torch.float32),
                                       torch.arange(-1.5, 2.5, 0.5, dtype=torch.float64))), [X],
         opsets=(9, 10, 11, 13, 17)),
    case("arange_size", ArangeSize(), [X], opsets=(9, 11, 13, 17)),
    case("arange_script", ArangeScript(), [X], method="script", opsets=(9, 11, 13, 17)),
    case("arange_runtime", ArangeRuntime(), [torch.tensor([1, 2])], method="script", opsets=(11, 13, 17)),
    case("zeros_ones_full", Fn(lambda a: (torch.zeros(2, 3), torch.ones(4), torch.full((2, 2), 1.5), torch.full((3,), 7),
                                          torch.ones(2, dtype=torch.bool), torch.zeros(2, dtype=torch.int32) + a.size(0))),
         [X]),
    case("like", Fn(lambda a: (torch.zeros_like(a), torch.ones_like(a, dtype=torch.int64), torch.full_like(a, 2.5),
                               torch.full_like(a, 3, dtype=torch.int32), torch.empty_like(a).fill_(-1.0))), [X]),
    case("new_", Fn(lambda a: (a.new_zeros(2, 3), a.new_ones((4,)), a.new_full((2, 1), 9.0), a.new_zeros(3, dtype=torch.int64))),
         [X]),
    case("fill_tensor", Fn(lambda a, v: torch.empty_like(a).fill_(v)), [X, torch.tensor(4.5)]),
    case("zeros_from_size", Fn(lambda a: torch.zeros(a.size()) + torch.ones(a.size(0), 1)), [X]),
    case("full_script", FullScript(), [X], method="script"),
    case("zeros_runtime", ZerosRuntime(), [torch.tensor([1, 2]), X], method="script"),
]


class ArangeLike(torch.nn.Module):
    def forward(self, x):
        return (torch.arange(x.shape[0], dtype=torch.float32, device=x.device) + x,
                torch.arange(1, 9, 2, dtype=torch.int32, device=x.device), torch.arange(1, 2.5, 0.5),
                torch.arange(-1.0, 1.0, 0.1, dtype=torch.float64))


# arange with dtype/device arguments and float bounds (length ceil((end - start) / step) in double).
CASES += [
    case("arange_dtype_device", ArangeLike(), [torch.randn(4)], opsets=(9, 11, 17)),
    case("arange_dtype_device_script", ArangeLike(), [torch.randn(4)], opsets=(9, 11, 17), method="script"),
]
