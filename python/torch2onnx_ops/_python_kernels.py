# The library's ops registered from Python, for PyTorch 2.0 to 2.7: libtorch2onnx_ops.so is built
# against the libtorch torch2onnx links (1.13) and cannot load into another PyTorch, and PyTorch
# >= 2.8 has these ops itself (torch.onnx.ops). Same namespaces, names and schemas as
# ops/src/register.cpp; the kernels are the ATen decompositions the `decompose` command uses
# (_aten_decompositions.py) and zeros for the symbolic ops. Unlike the C++ kernels they do not check
# their arguments.
from typing import List, Optional

import torch

from . import _aten_decompositions as _decomp

# ONNX TensorProto.DataType -> torch dtype, for the dtypes this PyTorch has.
_ONNX_TO_TORCH = {1: torch.float32, 2: torch.uint8, 3: torch.int8, 5: torch.int16, 6: torch.int32, 7: torch.int64,
                  9: torch.bool, 10: torch.float16, 11: torch.float64, 14: torch.complex64, 15: torch.complex128,
                  16: torch.bfloat16}
for _name, _number in (("uint16", 4), ("uint32", 12), ("uint64", 13), ("float8_e4m3fn", 17),
                       ("float8_e4m3fnuz", 18), ("float8_e5m2", 19), ("float8_e5m2fnuz", 20)):
    if hasattr(torch, _name):
        _ONNX_TO_TORCH[_number] = getattr(torch, _name)


def _dtype(onnx_dtype: int) -> torch.dtype:
    if onnx_dtype not in _ONNX_TO_TORCH:
        raise RuntimeError(f"Unsupported ONNX dtype {onnx_dtype} for this PyTorch")
    return _ONNX_TO_TORCH[onnx_dtype]


def _symbolic(inputs, op_type, onnx_dtype, *, shape, attr_keys, attr_types, attr_pos, attr_ints, attr_floats,
              attr_strs, metadata_props_keys, metadata_props_values, domain="", version=None):
    return torch.zeros(list(shape), dtype=_dtype(onnx_dtype))


def _symbolic_multi_out(inputs, op_type, onnx_dtypes, *, shapes, attr_keys, attr_types, attr_pos, attr_ints,
                        attr_floats, attr_strs, metadata_props_keys, metadata_props_values, domain="", version=None):
    return [torch.zeros(list(s), dtype=_dtype(d)) for s, d in zip(shapes, onnx_dtypes)]


def _rotary_embedding(x, cos_cache, sin_cache, position_ids=None, *, interleaved=False, num_heads=0,
                      rotary_embedding_dim=0):
    return _decomp.rotary_embedding_23(x, cos_cache, sin_cache, position_ids, interleaved, num_heads,
                                       rotary_embedding_dim)


def _attention(Q, K, V, attn_mask=None, past_key=None, past_value=None, *, is_causal=False, kv_num_heads=0,
               q_num_heads=0, qk_matmul_output_mode=0, scale=None, softcap=0.0, softmax_precision=None):
    return _decomp.attention_23(Q, K, V, attn_mask, past_key, past_value, is_causal, kv_num_heads, q_num_heads,
                                qk_matmul_output_mode, scale, softcap, softmax_precision)


_LIBRARIES: List[torch.library.Library] = []  # kept alive: dropping a Library removes its registrations


def register(schemas) -> None:
    """schemas: {namespace: [(schema, kernel), ...]} as register.cpp declares them."""
    kernels = {"_symbolic": _symbolic, "_symbolic_multi_out": _symbolic_multi_out,
               "RotaryEmbedding.opset23": _rotary_embedding, "Attention.opset23": _attention}
    for ns, entries in schemas.items():
        lib = torch.library.Library(ns, "FRAGMENT")
        for schema in entries:
            name = schema.split("(", 1)[0]
            lib.define(schema)
            lib.impl(name, kernels[name], "CompositeExplicitAutograd")
        _LIBRARIES.append(lib)


SCHEMAS = {
    "onnx_symbolic": [
        "_symbolic(Tensor?[] inputs, str op_type, int onnx_dtype, *, SymInt[] shape, str[] attr_keys, "
        "str[] attr_types, int[][] attr_pos, int[] attr_ints, float[] attr_floats, str[] attr_strs, "
        "str[] metadata_props_keys, str[] metadata_props_values, str domain='', int? version=None) -> Tensor",
        "_symbolic_multi_out(Tensor?[] inputs, str op_type, int[] onnx_dtypes, *, SymInt[][] shapes, "
        "str[] attr_keys, str[] attr_types, int[][] attr_pos, int[] attr_ints, float[] attr_floats, "
        "str[] attr_strs, str[] metadata_props_keys, str[] metadata_props_values, str domain='', "
        "int? version=None) -> Tensor[]",
    ],
    "onnx": [
        "RotaryEmbedding.opset23(Tensor x, Tensor cos_cache, Tensor sin_cache, Tensor? position_ids=None, *, "
        "bool interleaved=False, SymInt num_heads=0, SymInt rotary_embedding_dim=0) -> Tensor",
        "Attention.opset23(Tensor Q, Tensor K, Tensor V, Tensor? attn_mask=None, Tensor? past_key=None, "
        "Tensor? past_value=None, *, bool is_causal=False, SymInt kv_num_heads=0, SymInt q_num_heads=0, "
        "SymInt qk_matmul_output_mode=0, float? scale=None, float softcap=0.0, SymInt? softmax_precision=None) "
        "-> (Tensor, Tensor, Tensor, Tensor)",
    ],
}
