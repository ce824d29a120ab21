# ONNX -> ATen decompositions of onnx::RotaryEmbedding.opset23 and onnx::Attention.opset23, written in
# the TorchScript subset so that one text serves three users: torch2onnx_ops.aten_decompositions()
# (eager), torch.jit.script, and the `torch2onnx decompose` command (which compiles this file's
# definitions with libtorch; lines starting with `import`/`from` are skipped there). They compute what
# the library's kernels compute (ONNX Runtime 1.30's semantics; see README, "torch.onnx.ops"); argument
# checking is the kernels' job, these assume valid arguments. (No torch.<dtype> names: libtorch's own
# TorchScript compiler does not resolve them; half types are recognised by their element size.)
from typing import List, Optional, Tuple

import torch
from torch import Tensor


def rotary_embedding_23(x: Tensor, cos_cache: Tensor, sin_cache: Tensor, position_ids: Optional[Tensor] = None,
                        interleaved: bool = False, num_heads: int = 0, rotary_embedding_dim: int = 0) -> Tensor:
    rank = x.dim()
    batch = x.size(0)
    if rank == 4:
        x4 = x.permute(0, 2, 1, 3)
    else:
        x4 = x.reshape(batch, x.size(1), num_heads, x.size(2) // num_heads)
    seq = x4.size(1)
    heads = x4.size(2)
    head_size = x4.size(3)
    rot = rotary_embedding_dim if rotary_embedding_dim > 0 else head_size
    half = rot // 2
    if position_ids is not None:
        cos = cos_cache[position_ids]
        sin = sin_cache[position_ids]
    else:
        cos = cos_cache
        sin = sin_cache
    xr = x4[:, :, :, :rot]
    if x.element_size() == 2:  # float16 / bfloat16: rotated in float
        xr = xr.float()
    cos = cos.to(xr.dtype).unsqueeze(2)
    sin = sin.to(xr.dtype).unsqueeze(2)
    if interleaved:
        x1 = xr[:, :, :, 0::2]
        x2 = xr[:, :, :, 1::2]
    else:
        x1 = xr[:, :, :, :half]
        x2 = xr[:, :, :, half:]
    real = x1 * cos - x2 * sin
    imag = x1 * sin + x2 * cos
    if interleaved:
        rotated = torch.stack([real, imag], -1).reshape(batch, seq, heads, rot)
    else:
        rotated = torch.cat([real, imag], -1)
    out4 = torch.cat([rotated.to(x.dtype), x4[:, :, :, rot:]], -1)
    if rank == 4:
        return out4.permute(0, 2, 1, 3).contiguous()
    return out4.reshape(x.size()).contiguous()


def _lowest(x: Tensor) -> float:
    """The lowest finite value of x's floating-point dtype (ONNX Runtime's masked score)."""
    size = x.element_size()
    if size == 8:
        return -1.7976931348623157e308
    if size == 4:
        return -3.4028234663852886e38
    if bool(torch.isinf(torch.full([1], 1.0e5).to(x.dtype)).any()):  # float16 overflows, bfloat16 does not
        return -65504.0
    return -3.3895313892515355e38


def attention_23(Q: Tensor, K: Tensor, V: Tensor, attn_mask: Optional[Tensor] = None,
                 past_key: Optional[Tensor] = None, past_value: Optional[Tensor] = None, is_causal: bool = False,
                 kv_num_heads: int = 0, q_num_heads: int = 0, qk_matmul_output_mode: int = 0,
                 scale: Optional[float] = None, softcap: float = 0.0,
                 softmax_precision: Optional[int] = None) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    rank = Q.dim()
    batch = Q.size(0)
    if rank == 3:
        Q = Q.reshape(batch, Q.size(1), q_num_heads, Q.size(2) // q_num_heads).transpose(1, 2)
        K = K.reshape(batch, K.size(1), kv_num_heads, K.size(2) // kv_num_heads).transpose(1, 2)
        V = V.reshape(batch, V.size(1), kv_num_heads, V.size(2) // kv_num_heads).transpose(1, 2)
    qh = Q.size(1)
    kvh = K.size(1)
    q_seq = Q.size(2)
    head_size = Q.size(3)
    past = 0
    if past_key is not None and past_value is not None:
        past = past_key.size(2)
        present_key = torch.cat([past_key, K], 2)
        present_value = torch.cat([past_value, V], 2)
    else:
        present_key = K.contiguous()
        present_value = V.contiguous()
    total = present_key.size(2)
    dtype = Q.dtype
    Qc = Q.float() if Q.element_size() == 2 else Q  # half types are computed in float
    compute = Qc.dtype
    lowest = _lowest(Q)
    bias: Optional[Tensor] = None
    if attn_mask is not None:
        if not attn_mask.is_floating_point():  # a boolean mask
            bias = torch.where(attn_mask, torch.zeros([], dtype=compute), torch.full([], lowest, dtype=compute))
        else:
            bias = attn_mask.to(compute)
    if is_causal and not (q_seq == 1 and past > 0):
        rows = torch.arange(q_seq).unsqueeze(1)
        cols = torch.arange(total).unsqueeze(0)
        hidden = cols > rows + past
        if bias is None:
            base = torch.zeros([q_seq, total], dtype=compute)
        else:
            base = bias
        bias = torch.where(hidden, torch.full([], lowest, dtype=compute), base)
    keys = present_key
    values = present_value
    if qh != kvh:
        keys = keys.repeat_interleave(qh // kvh, 1)
        values = values.repeat_interleave(qh // kvh, 1)
    if scale is None:
        # ONNX Runtime rounds the default scale to float.
        scale_value = float(torch.full([1], 1.0 / (head_size ** 0.5)).item())
    else:
        scale_value = scale
    scores = torch.matmul(Qc, keys.to(compute).transpose(-2, -1)) * scale_value
    qk_out = scores
    if softcap > 0.0:
        scores = torch.tanh(scores / softcap) * softcap
    if qk_matmul_output_mode == 1:
        qk_out = scores
    if bias is not None:
        scores = scores + bias
    if qk_matmul_output_mode == 2:
        qk_out = scores
    if softmax_precision is not None and softmax_precision == 11:
        probs = torch.softmax(scores.double(), -1).to(compute)
    else:
        probs = torch.softmax(scores, -1)
    if qk_matmul_output_mode == 3:
        qk_out = probs
    out = torch.matmul(probs, values.to(compute)).to(dtype)
    if rank == 3:
        out = out.transpose(1, 2).reshape(batch, q_seq, qh * V.size(3))
    return out.contiguous(), present_key, present_value, qk_out.to(dtype).contiguous()
