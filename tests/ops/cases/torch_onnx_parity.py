# Ops torch.onnx 1.13 converts at opset 17 that had no symbolic here: prim::min/max on run-time
# ints, floats and int lists, aten::__range_length/__derive_index (range loops with run-time
# bounds), _weight_norm, native_layer_norm, _log_softmax, alias, lift/lift_fresh, hann/hamming/
# blackman windows, numpy_T, is_pinned, native_dropout, item, prim::layout,
# prim::type, _reshape_from_tensor, as_tensor, list(), top-level
# list pop/insert and del l[i] (aten::Delete), embedding_renorm, conj_physical, _cast_*.
from typing import List

import torch
from op_case import Fn, case


class MinMaxScalars(torch.nn.Module):
    def forward(self, x):
        n = min(x.size(0), 4)
        m = max(x.size(1), 2)
        f = min(float(x.size(0)), 2.5)
        g = max(float(x.size(1)), 3.5)
        k = min(n, m)
        return x[:n] * m * f + g + k


class MinMaxList(torch.nn.Module):
    def forward(self, x):
        s: List[int] = x.shape
        fl: List[float] = [float(x.size(0)), 3.5, float(x.size(1))]
        return x.reshape(-1)[: min(s)] * max(s) + min(fl) + max(fl)


class RangeLoop(torch.nn.Module):
    def forward(self, x):
        acc = torch.zeros_like(x[0])
        for i in range(1, x.size(0), 2):
            acc = acc + x[i] * i
        for j in range(x.size(0) - 1, -1, -3):
            acc = acc - x[j]
        return acc


class RangeLenCount(torch.nn.Module):
    def forward(self, x):
        count = 0
        for i in range(2, x.size(0)):
            count += i
        return x * count


class NativeLayerNorm(torch.nn.Module):
    def forward(self, x, w, b):
        return torch.native_layer_norm(x, [3, 4], w, b, 1e-5)


class NativeLayerNormNoAffine(torch.nn.Module):
    def forward(self, x):
        return torch.native_layer_norm(x, [4], None, None, 1e-3)


class LogSoftmaxPrivate(torch.nn.Module):
    def forward(self, x):
        return torch._log_softmax(x, 1, False), torch._log_softmax(x, -1, False)


class Aliases(torch.nn.Module):
    def forward(self, x):
        return torch.ops.aten.alias(x) + 1, torch.ops.aten.lift(x) * 2, torch.ops.aten.lift_fresh(x) - 1


class Windows(torch.nn.Module):
    def forward(self, x):
        n = x.size(-1)
        return (torch.hann_window(n), torch.hann_window(n, periodic=False), torch.hamming_window(n),
                torch.hamming_window(n, False), torch.blackman_window(n), torch.blackman_window(n, periodic=False),
                torch.hann_window(n, dtype=torch.float64), torch.hamming_window(n, True, 0.6, 0.3))


class WindowsOne(torch.nn.Module):
    def forward(self, x):
        n = x.size(-1)
        return torch.hann_window(n, periodic=False), torch.hamming_window(n, False), torch.blackman_window(n, False)


class NumpyT(torch.nn.Module):
    def forward(self, x, v):
        return x.T, v.T


class Pinned(torch.nn.Module):
    def forward(self, x):
        if x.is_pinned():
            return x
        return x + 1


class NativeDropoutEval(torch.nn.Module):
    def forward(self, x):
        return torch.native_dropout(x, 0.5, False)


class NativeDropoutTrain(torch.nn.Module):
    def forward(self, x):
        y, mask = torch.native_dropout(x, 0.25, True)
        return y, mask.to(torch.float32)


class Item(torch.nn.Module):
    def forward(self, x, i):
        s = x.sum().item()
        k = i.item()
        return x * s + k, torch.tensor(i.max().item())


class LayoutType(torch.nn.Module):
    def forward(self, x):
        z = torch.zeros(2, 3, dtype=x.dtype, layout=x.layout, device=x.device)
        if x.device.type == "cpu":
            return z + x
        return z - x


class ReshapeFromTensor(torch.nn.Module):
    def forward(self, x, like):
        return torch._reshape_from_tensor(x, torch._shape_as_tensor(like))


class Conj(torch.nn.Module):
    def forward(self, x):
        return torch.conj_physical(x) + torch.conj(x)


class Casts(torch.nn.Module):
    def forward(self, x):
        return (torch._cast_Int(x), torch._cast_Half(x), torch._cast_Long(x, False), torch._cast_Double(x),
                torch._cast_Byte(x.abs()), torch._cast_Float(x.to(torch.int32)), torch._cast_Char(x), torch._cast_Short(x))


class AsTensor(torch.nn.Module):
    def forward(self, x):
        return torch.as_tensor(x, dtype=torch.float64), torch.as_tensor([1.0, 2.0, 3.0]) + x, torch.as_tensor(x)


class ListCopy(torch.nn.Module):
    def forward(self, x):
        parts: List[torch.Tensor] = [x, x * 2]
        copy = list(parts)
        return torch.stack(copy) + len(copy)


class ListInsertPop(torch.nn.Module):
    def forward(self, x):
        parts: List[torch.Tensor] = [x, x * 2]
        parts.insert(0, x * 3)
        last = parts.pop()
        parts.append(last + 1)
        return torch.stack(parts)


class ListDelete(torch.nn.Module):
    def forward(self, x):
        parts: List[torch.Tensor] = [x, x * 2, x * 3]
        del parts[1]
        del parts[-1]
        return torch.stack(parts)


class ListDeleteAfterLoop(torch.nn.Module):
    def forward(self, x):
        parts: List[torch.Tensor] = [x, x * 2, x * 3]
        for i in range(x.size(0)):
            parts.append(x + i)
        del parts[1]
        return torch.stack(parts)


def weight_norm(module, dim):
    torch.manual_seed(1)
    return torch.nn.utils.weight_norm(module, dim=dim)


class EmbeddingMaxNorm(torch.nn.Module):
    def __init__(self, norm_type):
        super().__init__()
        torch.manual_seed(2)
        self.emb = torch.nn.Embedding(10, 4, max_norm=1.5, norm_type=norm_type)

    def forward(self, ids):
        return self.emb(ids)


x23 = torch.randn(2, 3)
CASES = [
    case("min_max_scalars", MinMaxScalars(), [torch.randn(6, 3)], method="script",
         cli_args=("--dynamic-axes", "x=0,1"),
         more_inputs=[[torch.randn(3, 5)], [torch.randn(2, 1)]], opsets=(10, 17)),
    case("min_max_scalars_static", MinMaxScalars(), [torch.randn(6, 3)], method="script", opsets=(9, 17)),
    case("min_max_list", MinMaxList(), [torch.randn(4, 3)], method="script", cli_args=("--dynamic-axes", "x=0,1"), more_inputs=[[torch.randn(2, 5)], [torch.randn(6, 4)]], opsets=(10, 17)),
    case("range_loop", RangeLoop(), [torch.randn(7, 3)], method="script", cli_args=("--dynamic-axes", "x=0",), more_inputs=[[torch.randn(2, 3)], [torch.randn(1, 3)]], opsets=(9, 13, 17)),
    case("range_len_count", RangeLenCount(), [torch.randn(5, 2)], method="script", cli_args=("--dynamic-axes", "x=0",), more_inputs=[[torch.randn(1, 2)], [torch.randn(3, 2)]], opsets=(9, 17)),
    case("weight_norm_linear", weight_norm(torch.nn.Linear(3, 4), 0), [torch.randn(2, 3)], opsets=(9, 17)),
    case("weight_norm_conv_dim1", weight_norm(torch.nn.Conv1d(2, 3, 3), 1), [torch.randn(1, 2, 6)], opsets=(9, 17)),
    case("weight_norm_all", weight_norm(torch.nn.Linear(3, 4), None), [torch.randn(2, 3)], opsets=(9, 17)),
    case("native_layer_norm", NativeLayerNorm(), [torch.randn(2, 3, 4), torch.randn(3, 4), torch.randn(3, 4)],
         method="script", opsets=(9, 17)),
    case("native_layer_norm_plain", NativeLayerNormNoAffine(), [torch.randn(2, 3, 4)], method="script",
         cli_args=("--dynamic-axes", "x=0,1"), more_inputs=[[torch.randn(1, 5, 4)]], opsets=(9, 13, 17)),
    case("log_softmax_private", LogSoftmaxPrivate(), [torch.randn(2, 3, 4)], method="script", opsets=(9, 13)),
    case("aliases", Aliases(), [x23], method="script", opsets=(9, 17)),
    case("windows", Windows(), [torch.randn(2, 8)], method="script", opsets=(9, 17)),
    case("windows_dynamic", Windows(), [torch.randn(2, 8)], method="script", cli_args=("--dynamic-axes", "x=1",), more_inputs=[[torch.randn(2, 5)], [torch.randn(2, 1)]], opsets=(9, 13)),
    case("windows_one", WindowsOne(), [torch.randn(2, 1)], method="script", opsets=(9,)),
    case("numpy_t", NumpyT(), [torch.randn(2, 3, 4), torch.randn(5)], method="script", opsets=(9, 17)),
    case("is_pinned", Pinned(), [x23], method="script", opsets=(9, 17)),
    case("native_dropout_eval", NativeDropoutEval(), [x23], method="script", opsets=(9, 17)),
    case("native_dropout_train", NativeDropoutTrain(), [torch.ones(64, 64)], method="script", compare="stats", opsets=(9, 17)),
    case("item", Item(), [x23, torch.tensor(3)], method="script", opsets=(9, 17)),
    case("layout_type", LayoutType(), [x23], method="script", opsets=(9, 17)),
    case("reshape_from_tensor", ReshapeFromTensor(), [torch.randn(2, 6), torch.randn(3, 4)], method="script",
         opsets=(9, 17)),
    case("embedding_max_norm", EmbeddingMaxNorm(2.0), [torch.tensor([[1, 2], [3, 1]])], opsets=(9, 13, 17)),
    case("embedding_max_norm_l1", EmbeddingMaxNorm(1.0), [torch.tensor([[1, 2, 7], [3, 1, 7]])], opsets=(9, 17)),
    case("embedding_max_norm_script", EmbeddingMaxNorm(2.0), [torch.tensor([4, 2, 4])], method="script",
         opsets=(9, 17)),
    case("conj_real", Conj(), [x23], method="script", opsets=(9, 17)),
    case("as_tensor", AsTensor(), [x23], method="script", opsets=(9, 17)),
    case("list_copy", ListCopy(), [x23], method="script", opsets=(9, 17)),
    case("list_insert_pop", ListInsertPop(), [x23], method="script", opsets=(9, 17)),
    case("list_delete", ListDelete(), [x23], method="script", opsets=(9, 17)),
    case("list_delete_after_loop", ListDeleteAfterLoop(), [x23], method="script", opsets=(13, 17),
         cli_args=("--dynamic-axes", "x=0"), more_inputs=[[torch.randn(4, 3)]]),
    case("casts", Casts(), [torch.randn(2, 3) * 3], method="script", opsets=(9, 17)),
]
