"""torch.onnx.ops (PyTorch >= 2.8) for this PyTorch, through torch2onnx's op library.

Importing this module loads libtorch2onnx_ops.so, which registers the ops exactly as PyTorch >= 2.8 does
(torch.ops.onnx_symbolic._symbolic / _symbolic_multi_out, torch.ops.onnx.RotaryEmbedding.opset23,
torch.ops.onnx.Attention.opset23), and mirrors torch.onnx.ops:

    import torch2onnx_ops as ops
    y = ops.rotary_embedding(x, cos_cache, sin_cache, position_ids)
    out, present_key, present_value, qk = ops.attention(q, k, v, past_key=pk, past_value=pv, is_causal=True)
    z = ops.symbolic("custom_domain::CustomOp", (x,), dict(attr_key="attr_value"), dtype=x.dtype,
                     shape=x.shape, version=1)

Models using them trace, script (rotary_embedding, attention; symbolic through torch.ops, see
encode_attrs) and save; `torch2onnx export` converts them (plugins/onnx_ops).
The library is found through $TORCH2ONNX_OPS_LIBRARY, else beside this package (installed tree:
<prefix>/lib/libtorch2onnx_ops.so; build tree: build/lib/libtorch2onnx_ops.so).
"""
import os
import subprocess
from typing import Dict, List, Optional, Sequence, Tuple, Union

import torch

__all__ = [
    "aten_decompositions",
    "symbolic",
    "symbolic_multi_out",
    "rotary_embedding",
    "attention",
    "is_in_onnx_export",
    "encode_attrs",
    "decompose",
    "library_path",
]

_LIBRARY_NAME = "libtorch2onnx_ops.so"


def _find_library() -> str:
    env = os.environ.get("TORCH2ONNX_OPS_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for rel in ("../..", "../../..", "."):  # build/lib/python/<pkg>; <prefix>/lib/pythonX.Y/dist-packages/<pkg>
        candidate = os.path.normpath(os.path.join(here, rel, _LIBRARY_NAME))
        if os.path.exists(candidate):
            return candidate
    raise ImportError(f"torch2onnx_ops: {_LIBRARY_NAME} not found beside {here} (set TORCH2ONNX_OPS_LIBRARY)")


def _has_onnx_ops() -> bool:
    """PyTorch >= 2.8 registers these ops itself (torch.onnx.ops, when imported)."""
    try:
        import torch.onnx.ops  # noqa: F401
    except ImportError:
        return False
    try:
        return bool(torch.ops.onnx.RotaryEmbedding.opset23) and bool(torch.ops.onnx_symbolic._symbolic)
    except (AttributeError, RuntimeError):
        return False


# The C++ library is built against torch2onnx's libtorch (1.13): it loads into that PyTorch only. Under
# PyTorch 2.x the ops come from PyTorch itself (>= 2.8) or are registered from Python
# (_python_kernels.py); library_path is then None.
library_path: Optional[str]
if int(torch.__version__.split(".")[0]) < 2:
    library_path = _find_library()
    torch.ops.load_library(library_path)
else:
    library_path = None
    if not _has_onnx_ops():
        from . import _python_kernels  # noqa: E402

        _python_kernels.register(_python_kernels.SCHEMAS)

from . import _aten_decompositions as _decomp  # noqa: E402

# ONNX TensorProto.DataType numbers of torch dtypes (torch.onnx.ops' table, for the dtypes this torch has).
_TORCH_DTYPE_TO_ONNX_DTYPE = {
    torch.float32: 1,
    torch.uint8: 2,
    torch.int8: 3,
    torch.int16: 5,
    torch.int32: 6,
    torch.int64: 7,
    str: 8,
    torch.bool: 9,
    torch.float16: 10,
    torch.float64: 11,
    torch.complex64: 14,
    torch.complex128: 15,
    torch.bfloat16: 16,
}
for _name, _number in (("uint16", 4), ("uint32", 12), ("uint64", 13), ("float8_e4m3fn", 17),
                       ("float8_e4m3fnuz", 18), ("float8_e5m2", 19), ("float8_e5m2fnuz", 20),
                       ("float4_e2m1fn_x2", 23)):
    if hasattr(torch, _name):
        _TORCH_DTYPE_TO_ONNX_DTYPE[getattr(torch, _name)] = _number

_AttrValue = Union[int, float, str, bool, Sequence[int], Sequence[float], Sequence[str], Sequence[bool]]


def is_in_onnx_export() -> bool:
    """False: in PyTorch (eager, traced or scripted) these ops run their kernels; export is torch2onnx's job."""
    return False


def encode_attrs(attrs: Optional[Dict[str, _AttrValue]]) -> Dict[str, list]:
    """The attribute dictionary as the parallel lists the symbolic ops take (attr_keys, attr_types
    ("i", "f", "s", "is", "fs", "ss"), attr_pos ([start, end) in the typed list), attr_ints, attr_floats,
    attr_strs), as torch.onnx.ops encodes it: bools are ints, a list holding any float is a float list.
    For scripted models: encode in Python, pass the lists to torch.ops.onnx_symbolic._symbolic."""
    enc = {"attr_keys": [], "attr_types": [], "attr_pos": [], "attr_ints": [], "attr_floats": [], "attr_strs": []}

    def put(kind, values, store):
        start = len(enc[store])
        enc[store].extend(values)
        enc["attr_pos"].append([start, start + len(values)])
        enc["attr_types"].append(kind)

    for key, value in (attrs or {}).items():
        enc["attr_keys"].append(key)
        if isinstance(value, int):  # bool included
            put("i", [int(value)], "attr_ints")
        elif isinstance(value, float):
            put("f", [value], "attr_floats")
        elif isinstance(value, str):
            put("s", [value], "attr_strs")
        elif isinstance(value, Sequence):
            if len(value) == 0:
                raise ValueError(f"Empty sequence for attribute {key}")
            if any(isinstance(v, float) for v in value):
                put("fs", [float(v) for v in value], "attr_floats")
            elif isinstance(value[0], int):
                put("is", [int(v) for v in value], "attr_ints")
            elif isinstance(value[0], str):
                put("ss", [str(v) for v in value], "attr_strs")
            else:
                raise ValueError(f"Unsupported sequence type for attribute {key}")
        else:
            raise ValueError(f"Unsupported attribute type for {key}: {type(value)}")
    return enc


def _onnx_dtype(dtype: Union[torch.dtype, int]) -> int:
    if isinstance(dtype, int):
        return dtype
    if dtype not in _TORCH_DTYPE_TO_ONNX_DTYPE:
        raise RuntimeError(f"Unsupported dtype: {dtype}")
    return _TORCH_DTYPE_TO_ONNX_DTYPE[dtype]


def _parse_domain_op_type(domain_op: str) -> Tuple[str, str]:
    parts = domain_op.split("::", 1)
    return ("", parts[0]) if len(parts) == 1 else (parts[0], parts[1])


def symbolic(domain_op: str, /, inputs: Sequence[Optional[torch.Tensor]],
             attrs: Optional[Dict[str, _AttrValue]] = None, *, dtype: Union[torch.dtype, int],
             shape: Sequence[int], version: Optional[int] = None,
             metadata_props: Optional[Dict[str, str]] = None) -> torch.Tensor:
    """An arbitrary ONNX node with one output ("domain::OpType"): zeros of DTYPE and SHAPE in PyTorch,
    the node itself in the exported model (attributes, opset_import version, node metadata_props)."""
    domain, op_type = _parse_domain_op_type(domain_op)
    enc = encode_attrs(attrs)
    return torch.ops.onnx_symbolic._symbolic(
        list(inputs), op_type, _onnx_dtype(dtype), shape=[int(s) for s in shape],
        metadata_props_keys=list(metadata_props.keys()) if metadata_props else [],
        metadata_props_values=list(metadata_props.values()) if metadata_props else [],
        domain=domain, version=version, **enc)


def symbolic_multi_out(domain_op: str, /, inputs: Sequence[Optional[torch.Tensor]],
                       attrs: Optional[Dict[str, _AttrValue]] = None, *, dtypes: Sequence[Union[torch.dtype, int]],
                       shapes: Sequence[Sequence[int]], version: Optional[int] = None,
                       metadata_props: Optional[Dict[str, str]] = None) -> Sequence[torch.Tensor]:
    """symbolic() with several outputs: one dtype and one shape per output."""
    if len(shapes) != len(dtypes):
        raise RuntimeError(f"Number of shapes ({len(shapes)}) must match number of dtypes ({len(dtypes)})")
    domain, op_type = _parse_domain_op_type(domain_op)
    enc = encode_attrs(attrs)
    return torch.ops.onnx_symbolic._symbolic_multi_out(
        list(inputs), op_type, [_onnx_dtype(d) for d in dtypes], shapes=[[int(s) for s in shp] for shp in shapes],
        metadata_props_keys=list(metadata_props.keys()) if metadata_props else [],
        metadata_props_values=list(metadata_props.values()) if metadata_props else [],
        domain=domain, version=version, **enc)


def rotary_embedding(X: torch.Tensor, cos_cache: torch.Tensor, sin_cache: torch.Tensor,
                     position_ids: Optional[torch.Tensor] = None, interleaved: bool = False, num_heads: int = 0,
                     rotary_embedding_dim: int = 0) -> torch.Tensor:
    """ONNX RotaryEmbedding-23 (onnx::RotaryEmbedding.opset23). X: (batch, heads, seq, head_size), or
    (batch, seq, hidden) with num_heads; caches (max_pos, rot/2) with position_ids (batch, seq), else
    (batch, seq, rot/2); interleaved or half-split rotation of the first rotary_embedding_dim (0: all)."""
    return torch.ops.onnx.RotaryEmbedding(X, cos_cache, sin_cache, position_ids, interleaved=interleaved,
                                          num_heads=num_heads, rotary_embedding_dim=rotary_embedding_dim)


def attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, attn_mask: Optional[torch.Tensor] = None,
              past_key: Optional[torch.Tensor] = None, past_value: Optional[torch.Tensor] = None,
              is_causal: bool = False, kv_num_heads: int = 0, q_num_heads: int = 0, qk_matmul_output_mode: int = 0,
              scale: Optional[float] = None, softcap: float = 0.0,
              softmax_precision: Optional[int] = None) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """ONNX Attention-23 (onnx::Attention.opset23): (output, present_key, present_value, qk_output).
    Q/K/V 4-D (batch, heads, seq, size) or 3-D (batch, seq, hidden) with q_num_heads/kv_num_heads;
    grouped-query heads, boolean or additive mask, is_causal, past_key/past_value (4-D)."""
    return torch.ops.onnx.Attention(Q, K, V, attn_mask, past_key, past_value, is_causal=is_causal,
                                    kv_num_heads=kv_num_heads, q_num_heads=q_num_heads,
                                    qk_matmul_output_mode=qk_matmul_output_mode, scale=scale, softcap=softcap,
                                    softmax_precision=softmax_precision)


def aten_decompositions() -> Dict[object, object]:
    """{op overload: function of ATen ops} for onnx::RotaryEmbedding.opset23 and onnx::Attention.opset23,
    as torch.onnx.ops.aten_decompositions() (the functions are also scriptable)."""
    return {
        torch.ops.onnx.RotaryEmbedding.opset23: _decomp.rotary_embedding_23,
        torch.ops.onnx.Attention.opset23: _decomp.attention_23,
    }


def decompose(model_in: str, model_out: str, torch2onnx: Optional[str] = None) -> None:
    """Rewrites a saved TorchScript model's onnx::RotaryEmbedding / onnx::Attention calls into ATen ops
    (`torch2onnx decompose`), so that MODEL_OUT runs in a PyTorch without this library."""
    exe = torch2onnx or os.environ.get("TORCH2ONNX")
    if not exe and library_path is None:
        raise RuntimeError("torch2onnx_ops.decompose: pass torch2onnx= (or set TORCH2ONNX) to the torch2onnx program")
    if not exe:
        lib_dir = os.path.dirname(library_path)
        exe = os.path.join(os.path.dirname(lib_dir), "bin", "torch2onnx")
    result = subprocess.run([exe, "decompose", model_in, "-o", model_out], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip() or f"torch2onnx decompose failed ({result.returncode})")
