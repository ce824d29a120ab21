# Small TorchScript builtins: prim::min/max on lists and ints, prim::data, prim::tolist,
# aten::IntImplicit, aten::is_floating_point, aten::_shape_as_tensor, aten::_dim_arange,
# aten::resolve_conj/resolve_neg, aten::copy_ of a whole tensor.
from typing import List

import torch
from op_case import case


class MinMaxList(torch.nn.Module):
    def forward(self, x):
        s: List[int] = x.shape
        return x.reshape(max(s), min(s)) + min(s[0], s[1])


class MinMaxInts(torch.nn.Module):
    def forward(self, x):
        a = x.size(0)
        b = x.size(1)
        return x.reshape(min(a, b), max(a, b))


class Queries(torch.nn.Module):
    def forward(self, x):
        return x.data * 2, torch.tensor(x.is_floating_point()), torch._shape_as_tensor(x), torch._dim_arange(x, 1)


class Tolist(torch.nn.Module):
    def forward(self, x):
        items: List[int] = x.tolist()
        return torch.tensor(items) + items[0]


class TolistFloat(torch.nn.Module):
    def forward(self, x):
        items: List[float] = x.tolist()
        return x * items[1] + items[0]


class Resolve(torch.nn.Module):
    def forward(self, x):
        return x.resolve_conj().resolve_neg() * 2


class WholeCopy(torch.nn.Module):
    def forward(self, x, y):
        z = torch.zeros_like(x)
        z.copy_(y)
        return z + 1


class IntImplicit(torch.nn.Module):
    def forward(self, x):
        n = int(x.sum())
        return x * n


CASES = [
    case("min_max_list", MinMaxList(), [torch.randn(2, 3)], method="script"),
    case("min_max_ints", MinMaxInts(), [torch.randn(2, 3)], method="script"),
    case("queries", Queries(), [torch.randn(2, 3)], method="script"),
    case("queries_dynamic", Queries(), [torch.randn(2, 3)], method="script", opsets=(9, 13, 17),
         cli_args=("--dynamic-axes", "x=1")),
    case("tolist", Tolist(), [torch.randint(0, 4, (3,))], method="script"),
    case("tolist_float", TolistFloat(), [torch.randn(3)], method="script"),
    case("resolve_conj_neg", Resolve(), [torch.randn(2, 3)], method="script"),
    case("resolve_conj_neg_traced", Resolve(), [torch.randn(2, 3)]),
    case("copy_whole", WholeCopy(), [torch.randn(2, 3), torch.randn(2, 3)]),
    case("copy_broadcast_cast", WholeCopy(), [torch.randn(2, 3), torch.randint(0, 5, (3,))], method="script"),
    case("int_implicit", IntImplicit(), [torch.ones(2, 3)], method="script"),
]
