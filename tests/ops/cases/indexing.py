# Indexing: aten::index (int tensors, several, None slots, bool masks), index_select, gather,
# scatter, index_fill, masked_fill, tril/triu, and a GPT-style causal mask.
import torch
from op_case import case


class IndexOne(torch.nn.Module):
    def forward(self, x, i):
        return x[i], x[:, i], x[:, :, i], x[i.view(2, 2)], x[:, -1 - i]


class IndexMulti(torch.nn.Module):
    def forward(self, x, i, j):
        return x[i, j], x[:, i, j], x[i, :, j], x[i.view(2, 2), j.view(2, 2)], x[i.view(4, 1), j]


class IndexMask(torch.nn.Module):
    def forward(self, x, m):
        return x[x > 0], x[m], x[:, m[0]], x[m[:, :, 0]]


class IndexSelect(torch.nn.Module):
    def forward(self, x, i):
        return torch.index_select(x, 1, i), x.index_select(-1, i[:2]), x.index_select(0, i[0])


class Gather(torch.nn.Module):
    def forward(self, x, i0, i1):
        return torch.gather(x, 0, i0), torch.gather(x, 1, i1), torch.gather(x, -1, i1[:, :2])


class Scatter(torch.nn.Module):
    def forward(self, x, idx, src, idx0):
        return x.scatter(1, idx, src), x.scatter(1, idx, 2.5), x.scatter(0, idx0, src)


class ScatterAdd(torch.nn.Module):
    def forward(self, x, idx, src):
        return x.scatter_add(1, idx, src), x.scatter(1, idx, src, reduce="multiply")


class IndexFill(torch.nn.Module):
    def forward(self, x, i):
        return x.index_fill(1, i, -1.0), x.index_fill(0, i[:1], 3), x.index_fill(-1, i, torch.tensor(7.0))


class MaskedFill(torch.nn.Module):
    def forward(self, x, m):
        return (x.masked_fill(m, 0.5), x.masked_fill(x > 0, float("-inf")), x.masked_fill(m[0], torch.tensor(2.0)),
                x.long().masked_fill(m, 3), m.masked_fill(x > 1, 1))


class Trilu(torch.nn.Module):
    def forward(self, x, b):
        return torch.triu(x), torch.tril(x), torch.triu(x, 1), torch.tril(x, -1), torch.triu(x, -2), torch.tril(b, 1)


class CausalFloat(torch.nn.Module):
    """GPT-style additive mask built in the graph."""
    def forward(self, scores):
        T = scores.size(-1)
        mask = torch.triu(torch.ones(T, T) * float("-inf"), diagonal=1)
        return torch.softmax(scores + mask, -1)


class CausalBool(torch.nn.Module):
    def forward(self, scores):
        T = scores.size(-1)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        return torch.softmax(scores.masked_fill(mask, float("-inf")), -1)


class CausalBuffer(torch.nn.Module):
    """nanoGPT: a tril buffer sliced to T and compared."""
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.tril(torch.ones(8, 8)).view(1, 1, 8, 8))

    def forward(self, att):
        T = att.size(-1)
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        return torch.softmax(att, -1)


class CausalMaskInput(torch.nn.Module):
    """The mask path with only this family's ops (no creation ops): triu of an input."""
    def forward(self, scores, ones):
        mask = torch.triu(ones, 1).bool()
        return scores.masked_fill(mask, float("-inf"))


x345 = torch.randn(3, 4, 5)
CASES = [
    case("index_one", IndexOne(), [x345, torch.tensor([0, 2, 1, 2])], opsets=(9, 11, 13, 17)),
    case("index_one_script", IndexOne(), [x345, torch.tensor([0, 2, 1, 2])], method="script"),
    case("index_multi", IndexMulti(), [x345, torch.tensor([0, 2, 1, -1]), torch.tensor([1, 3, 0, 2])], opsets=(9, 11, 13, 17)),
    case("index_mask", IndexMask(), [x345, torch.randn(3, 4, 5) > 0]),
    case("index_mask_script", IndexMask(), [x345, torch.randn(3, 4, 5) > 0], method="script"),
    case("index_select", IndexSelect(), [x345, torch.tensor([2, 0, 1])]),
    case("gather", Gather(), [x345, torch.randint(0, 3, (2, 4, 5)), torch.randint(0, 4, (3, 2, 5))], opsets=(9, 10, 11, 13, 17)),
    case("scatter", Scatter(), [x345, torch.tensor([[[0, 1, 2, 3, 0], [3, 2, 1, 0, 1]]] * 3), torch.randn(3, 3, 5),
                                torch.tensor([[[0, 1, 2, 1, 0], [2, 2, 1, 0, 1]]])], opsets=(9, 10, 11, 13, 16, 17)),
    case("scatter_reduce", ScatterAdd(), [x345, torch.tensor([[[0, 1, 2, 3, 0], [3, 2, 1, 0, 1]]] * 3), torch.randn(3, 2, 5)],
         opsets=(16, 17)),
    case("index_fill", IndexFill(), [x345, torch.tensor([0, 3])], opsets=(9, 11, 13, 17)),
    case("masked_fill", MaskedFill(), [x345, torch.randn(3, 4, 5) > 0]),
    case("masked_fill_script", MaskedFill(), [x345, torch.randn(3, 4, 5) > 0], method="script"),
    case("tril_triu", Trilu(), [torch.randn(2, 4, 6), torch.randn(5, 3) > 0], opsets=(9, 11, 13, 14, 17)),
    case("causal_mask_float", CausalFloat(), [torch.randn(2, 2, 5, 5)], opsets=(9, 13, 14, 17)),
    case("causal_mask_bool", CausalBool(), [torch.randn(2, 2, 5, 5)], opsets=(9, 13, 14, 17)),
    case("causal_mask_bool_script", CausalBool(), [torch.randn(2, 2, 5, 5)], opsets=(9, 14, 17), method="script"),
    case("causal_mask_buffer", CausalBuffer(), [torch.randn(2, 2, 5, 5)], opsets=(9, 13, 14, 17)),
    case("causal_mask_input", CausalMaskInput(), [torch.randn(2, 2, 5, 5), torch.ones(5, 5)], opsets=(9, 13, 14, 17)),
]


class DynamicMix(torch.nn.Module):
    """Dynamic-axes paths: run-time dims in squeeze, select, index, mask, tril and causal masks."""
    def forward(self, x, i):
        T = x.size(-1)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        return (x.masked_fill(mask, float("-inf")), torch.tril(x, -1), x[:, i], x[-1], x.index_fill(1, i, 0.0),
                x.unsqueeze(0).squeeze(0), torch.flip(x, [1]), torch.roll(x, 1, 1), x[:, 1:-1])


CASES += [
    case("dynamic_mix", DynamicMix(), [torch.randn(3, 6, 6), torch.tensor([0, 2])], opsets=(11, 13, 14, 17),
         cli_args=("--dynamic-axes", "x=0,1,2")),
]


class IndexCopy0d(torch.nn.Module):
    def forward(self, x, source):
        return x.index_copy(0, torch.tensor([0, 0]), source)


class IndexSelect0d(torch.nn.Module):
    def __init__(self, dim=1):
        super().__init__()
        self.dim = dim

    def forward(self, x, index):
        return torch.index_select(x, self.dim, index)


class IndexAdd(torch.nn.Module):
    def __init__(self, dim, index, alpha=1):
        super().__init__()
        self.dim, self.index, self.alpha = dim, index, alpha

    def forward(self, x, source):
        return x.index_add(self.dim, self.index, source, alpha=self.alpha)


class IndexAddInput(torch.nn.Module):
    def forward(self, x, source, index):
        y = x.clone()
        y.index_add_(1, index, source)
        return y


# index_add: OneHot + MatMul before 16 (repeated indices summed), ScatterElements(add) from 16.
IA_OPSETS = (9, 11, 16, 17)
CASES += [
    case("index_add_repeated", IndexAdd(0, torch.tensor([0, 2, 0, 0])), [torch.randn(3, 4), torch.randn(4, 4)],
         opsets=IA_OPSETS),
    case("index_add_dim1_fewer", IndexAdd(1, torch.tensor([1, 1])), [torch.randn(3, 4), torch.randn(3, 2)],
         opsets=IA_OPSETS),
    case("index_add_more_than_dim", IndexAdd(-1, torch.tensor([2, 2, 0, 1, 2, 0]), alpha=2.5),
         [torch.randn(2, 3), torch.randn(2, 6)], opsets=IA_OPSETS),
    case("index_add_index_input", IndexAddInput(), [torch.randn(3, 4, 2), torch.randn(3, 5, 2), torch.tensor([0, 3, 3, 1, 0])],
         opsets=IA_OPSETS),
    case("index_add_int", IndexAdd(0, torch.tensor([0, 0, 1])), [torch.randint(0, 5, (2, 3)), torch.randint(0, 5, (3, 3))],
         opsets=IA_OPSETS),
    case("index_add_int32", IndexAdd(-1, torch.tensor([2, 2, 0])),
         [torch.randint(0, 5, (2, 3), dtype=torch.int32), torch.randint(0, 5, (2, 3), dtype=torch.int32)], opsets=IA_OPSETS),
    case("index_add_0d_self", IndexAdd(0, torch.tensor([0, 0])), [torch.tensor(1.0), torch.randn(2)], opsets=IA_OPSETS),
    case("index_add_0d_index", IndexAdd(1, torch.tensor(1)), [torch.randn(2, 3), torch.randn(2, 1)], opsets=IA_OPSETS),
    case("index_copy_0d_self", IndexCopy0d(), [torch.tensor(1.0), torch.randn(2)], opsets=IA_OPSETS),
    case("index_select_0d_index", IndexSelect0d(), [torch.randn(3, 4), torch.tensor(2)]),
    case("index_select_0d_self", IndexSelect0d(0), [torch.tensor(1.5), torch.tensor(0)]),
]
