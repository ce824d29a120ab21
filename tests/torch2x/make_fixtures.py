#!/usr/bin/env python3
"""Fixtures saved by a real PyTorch 2.x: the TorchScript models, inputs and outputs that the ctest
label torch2x exports with torch2onnx, runs in ONNX Runtime and compares (tests/torch2x/test_torch2x.cpp).

Run inside the PyTorch 2.6 root (scripts/torch2x_env.sh) and commit the result:

    bash scripts/torch2x_env.sh run tests/torch2x/make_fixtures.py tests/torch2x/fixtures

Each case is OUT/<name>/ with model.pt (traced or scripted by 2.6, saved with .save()), in<i>.bin /
out<i>.bin (raw little-endian arrays) and meta.json (tests/ort/compare.js's format plus "cli_inputs":
the --input specs, which may differ from the compared inputs' shapes along dynamic axes, and
"export_args": more export options). An error case has meta.json {"kind": "error", "cli_inputs",
"expect_error"} and no outputs. OUT/index.json lists the cases, the opsets each is exported at, the
ONNX node that must appear from an opset on ("native") and the SHA-256 of this file: the test fails
when this file changed and the fixtures were not regenerated.

Everything is small (random weights, fixed seeds, a few KB per model): keep it so (the repository
holds the files).
"""
import hashlib
import json
import os
import shutil
import sys
from typing import Optional

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CASES = []  # (name, build, opsets, native, extra)


def case(name, opsets=(17, 23), native=None, **extra):
    """native: (op_type, since_opset) that must appear from since_opset on and not below, or
    (op_type, None): must not appear at any of the opsets (the decomposition is kept)."""
    def deco(fn):
        CASES.append((name, fn, tuple(opsets), native, extra))
        return fn
    return deco


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


class Fn(nn.Module):
    """A module whose forward is a lambda over its inputs (traced only)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


sdpa = F.scaled_dot_product_attention


# --- scaled_dot_product_attention ---------------------------------------------------------------
class Sdpa(nn.Module):
    def __init__(self, kind, scale: float = 1.0):
        super().__init__()
        self.kind = kind
        self.scale = scale

    def forward(self, q, k, v, mask):
        if self.kind == "plain":
            return F.scaled_dot_product_attention(q, k, v)
        if self.kind == "causal":
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        if self.kind == "mask":
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        if self.kind == "scale":
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=self.scale)
        if self.kind == "gqa":
            return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        # "dropout": a dropout probability that is 0 in eval (the Hugging Face pattern)
        p = 0.1 if self.training else 0.0
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)


class SdpaMaskOrCausal(nn.Module):
    """PyTorch 2.14's scripted nn.MultiheadAttention: a mask that is causal goes to SDPA as None with
    is_causal=True, any other as the mask: an Optional[Tensor] and an is_causal known at run time."""

    def forward(self, q, k, v, mask):
        causal = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()
        is_causal = bool(torch.equal(mask, causal))
        m: Optional[torch.Tensor] = None if is_causal else mask
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=is_causal)


def qkv(b=2, hq=4, hk=4, L=5, S=5, E=8, Ev=8, dtype=torch.float32):
    return r(b, hq, L, E, dtype=dtype), r(b, hk, S, E, dtype=dtype), r(b, hk, S, Ev, dtype=dtype)


def bool_mask_with_hidden_row(*shape):
    m = torch.rand(*shape) > 0.3
    m[..., 0] = True
    m.view(-1, shape[-2], shape[-1])[0, 1] = False  # one query sees no key: PyTorch gives 0, not NaN
    return m


@case("sdpa_plain", methods=("trace", "script"), native=("Attention", 23))
def _():
    return Sdpa("plain"), (*qkv(Ev=6), torch.zeros(1))


@case("sdpa_causal_short_queries", native=("Attention", 23))
def _():  # L < S: PyTorch's causal mask is aligned top-left
    return Sdpa("causal"), (*qkv(L=3, S=5), torch.zeros(1))


@case("sdpa_optional_mask_causal", methods=("script",), native=("Attention", None))
def _():  # the mask given is causal: SDPA gets None and is_causal=True
    return SdpaMaskOrCausal(), (*qkv(L=5, S=5), torch.ones(5, 5, dtype=torch.bool).tril())


@case("sdpa_optional_mask_other", methods=("script",), native=("Attention", None))
def _():  # any other mask: SDPA gets it and is_causal=False
    return SdpaMaskOrCausal(), (*qkv(L=5, S=5), bool_mask_with_hidden_row(5, 5))


@case("sdpa_causal_long_queries", opsets=(9, 17, 23), native=("Attention", 23))
def _():  # L > S
    return Sdpa("causal"), (*qkv(L=6, S=4), torch.zeros(1))


@case("sdpa_mask_bool", opsets=(9, 13, 17, 18, 23), methods=("trace", "script"), native=("Attention", 23))
def _():
    return Sdpa("mask"), (*qkv(), bool_mask_with_hidden_row(2, 1, 5, 5))


@case("sdpa_mask_float_neg_inf", native=("Attention", 23))
def _():
    m = r(5, 5)
    m[2] = float("-inf")  # a fully masked row
    return Sdpa("mask"), (*qkv(), m)


@case("sdpa_mask_key_padding", native=("Attention", 23))
def _():  # [B, 1, 1, S] from finfo.min: ONNX Runtime needs it expanded to [..., L, S]
    m = torch.zeros(2, 1, 1, 5)
    m[1, ..., -2:] = torch.finfo(torch.float32).min
    return Sdpa("mask"), (*qkv(L=3), m)


@case("sdpa_scale", native=("Attention", 23))
def _():
    return Sdpa("scale", 0.25), (*qkv(), r(1, 5))


@case("sdpa_negative_scale", native=("Attention", None))
def _():  # ONNX Runtime's Attention refuses scale <= 0: decomposed at 23 too
    return Sdpa("scale", -0.3), (*qkv(), torch.zeros(5, 5))


@case("sdpa_gqa", methods=("trace", "script"), native=("Attention", 23))
def _():
    return Sdpa("gqa"), (*qkv(hq=8, hk=2, L=4, S=6), torch.zeros(1))


@case("sdpa_dropout_eval", methods=("trace", "script"), native=("Attention", 23))
def _():
    return Sdpa("dropout"), (*qkv(), torch.zeros(2, 1, 1, 5))


@case("sdpa_3d", native=("Attention", 23))
def _():  # [N, L, E] inputs and a [N, L, S] mask
    return Sdpa("mask"), (r(3, 4, 8), r(3, 6, 8), r(3, 6, 5), bool_mask_with_hidden_row(3, 4, 6))


@case("sdpa_5d", native=("Attention", None))
def _():  # rank 5: PyTorch's matmul takes it, Attention does not
    return Sdpa("causal"), (r(2, 2, 3, 4, 8), r(2, 2, 3, 5, 8), r(2, 2, 3, 5, 8), torch.zeros(1))


@case("sdpa_batch_broadcast", native=("Attention", None))
def _():  # key/value batch 1 broadcast against the query's 2
    return Sdpa("plain"), (r(2, 4, 3, 8), r(1, 4, 5, 8), r(1, 4, 5, 8), torch.zeros(1))


@case("sdpa_float16", native=("Attention", 23), rtol=1e-2)
def _():
    return Sdpa("mask"), (*qkv(dtype=torch.float16), torch.zeros(2, 1, 5, 5, dtype=torch.float16))


# bad inputs: one line, exit 1, no file
@case("error_sdpa_dropout_train", error="dropout_p=0.1")
def _():  # traced in training mode: the trace holds dropout_p=0.1, which PyTorch applies in eval too
    m = Sdpa("dropout")
    m.train()
    return m, (*qkv(), torch.zeros(2, 1, 1, 5))


@case("error_sdpa_mask_shape", error=["attn_mask", "float32[3,5,5]"],
      cli_inputs=["float32[2,4,5,8]", "float32[2,4,5,8]", "float32[2,4,5,8]", "float32[3,5,5]"])
def _():  # traced with a good [B, 1, L, S] mask, exported with a [3, L, S] one (batch 3 against 2)
    return Sdpa("mask"), (*qkv(), r(2, 1, 5, 5))


# --- rms_norm ------------------------------------------------------------------------------------
@case("rmsnorm_module", opsets=(9, 17, 18, 23), methods=("trace", "script"), native=("RMSNormalization", 23))
def _():
    m = nn.RMSNorm(16)  # eps None: finfo(float32).eps
    with torch.no_grad():
        m.weight.uniform_(0.5, 1.5)
    return m, (r(2, 3, 16) * 1e-3,)


@case("rmsnorm_two_dims_eps", native=("RMSNormalization", 23))
def _():
    return nn.RMSNorm([3, 16], eps=1e-6, elementwise_affine=False), (r(2, 3, 16),)


class FRms(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(16) + 0.5)

    def forward(self, x):
        return F.rms_norm(x, (16,), self.w, 1e-5) + F.rms_norm(x, [16])


@case("rmsnorm_functional", methods=("trace", "script"), native=("RMSNormalization", 23))
def _():
    return FRms(), (r(2, 3, 16),)


@case("rmsnorm_float16", native=("RMSNormalization", 23), rtol=2e-3)
def _():  # eps None is finfo(float16).eps = 2^-10; statistics in float
    m = nn.RMSNorm(16).half()
    with torch.no_grad():
        m.weight.uniform_(0.5, 1.5)
    return m, ((r(2, 3, 16) * 0.05).half(),)


@case("rmsnorm_float64", native=("RMSNormalization", None))
def _():  # PyTorch's statistics are in double: RMSNormalization's float32 stash would not match
    return nn.RMSNorm(16, eps=1e-8).double(), (r(2, 3, 16, dtype=torch.float64),)


# --- the other 2.x ops ---------------------------------------------------------------------------
@case("safe_softmax", opsets=(9, 13, 17))
def _():
    x = r(3, 4, 5)
    x[1, 2] = float("-inf")
    x[0, :, 1] = float("-inf")
    return Fn(lambda t: (torch.ops.aten._safe_softmax(t, -1), torch.ops.aten._safe_softmax(t, 1))), (x,)


class SqueezeDims(nn.Module):
    def forward(self, x):
        return x.squeeze((0, 2)) * 2, torch.squeeze(x, dim=(0, 2, 3))


@case("squeeze_dims", opsets=(9, 13, 17), methods=("trace", "script"))
def _():
    return SqueezeDims(), (r(1, 3, 1, 4),)


class AllAnyDims(nn.Module):
    def forward(self, x):
        b = x > 0
        return (b.all(dim=(0, 1)), b.any(dim=(1, 2), keepdim=True), torch.all(b, dim=[0, 2]),
                torch.any(x, dim=[]), torch.all(b, dim=None, keepdim=True))  # dim=[]: no reduction


@case("all_any_dims", methods=("trace", "script"))
def _():
    return AllAnyDims(), (r(2, 3, 4),)


class NonzeroStatic(nn.Module):
    def forward(self, x):
        return torch.nonzero_static(x > 0, size=6, fill_value=-1), torch.nonzero_static(x > 1, size=2)


@case("nonzero_static", methods=("trace", "script"))
def _():
    return NonzeroStatic(), (r(3, 4),)


class BnLegit(nn.Module):
    def __init__(self):
        super().__init__()
        self.w, self.b = nn.Parameter(torch.rand(4) + 0.5), nn.Parameter(torch.randn(4))
        self.register_buffer("rm", torch.randn(4))
        self.register_buffer("rv", torch.rand(4) + 0.5)

    def forward(self, x):
        a = torch.ops.aten._native_batch_norm_legit_no_training(x, self.w, self.b, self.rm, self.rv, 0.1, 1e-5)
        c = torch.ops.aten._native_batch_norm_legit(x, self.w, self.b, self.rm.clone(), self.rv.clone(), False, 0.1, 1e-3)
        d = torch.ops.aten._native_batch_norm_legit(x, self.w, None, True, 0.1, 1e-5)
        return a[0], a[1], c[0], d[0], d[1], d[2]


@case("batch_norm_legit", methods=("trace", "script"))
def _():
    return BnLegit(), (r(2, 4, 3, 3),)


class PreluKernel(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(4) * 0.5)

    def forward(self, x):
        return torch.ops.aten._prelu_kernel(x, self.w.reshape(4, 1, 1)), torch.ops.aten._prelu_kernel(x, self.w[:1])


@case("prelu_kernel", methods=("trace", "script"))
def _():
    return PreluKernel(), (r(2, 4, 3, 3),)


class LinLogTensor(nn.Module):
    def forward(self, x):
        lo, hi = x.min(), x.max()
        return (torch.linspace(lo, hi, 5), torch.linspace(0.0, hi, 4), torch.logspace(lo, 2.0, 3, base=2.0),
                torch.logspace(-1.0, 1.0, 4))


@case("linspace_logspace_tensor", methods=("trace", "script"))
def _():
    return LinLogTensor(), (r(6),)


class VarFloatCorrection(nn.Module):
    def forward(self, x):
        return (torch.var(x, dim=1, correction=0.5), torch.std(x, correction=1.5),
                torch.var_mean(x, 1, correction=2.5, keepdim=True)[0])


@case("var_std_float_correction", methods=("trace", "script"))
def _():
    return VarFloatCorrection(), (r(3, 5),)


class PadSeq(nn.Module):
    def forward(self, a, b):
        return (torch.nn.utils.rnn.pad_sequence([a, b], batch_first=True, padding_side="left"),
                torch.nn.utils.rnn.pad_sequence([a, b], padding_value=2.5, padding_side="left"),
                torch.nn.utils.rnn.pad_sequence([a, b]))


# Scripted, 2.x's pad_sequence asks isinstance(sequences, Tensor) of its Union argument (folded at
# export: core/src/prepare/passes.cpp, static_isinstance).
@case("pad_sequence_side", methods=("trace", "script"))
def _():
    return PadSeq(), (r(3, 2), r(5, 2))


class ScriptProps(nn.Module):
    def forward(self, x):
        return x * float(x.nbytes + x.itemsize), torch.ops.aten._reshape_copy(x, [3, 2]).squeeze_copy()


@case("script_nbytes_itemsize", methods=("script",))
def _():
    return ScriptProps(), (r(2, 3),)


class EmptyPermuted(nn.Module):
    def forward(self, x):
        e = torch.empty_permuted((x.shape[0], 3, 4), (0, 2, 1))
        return e.fill_(1.0) + x


@case("empty_permuted", methods=("trace", "script"))
def _():
    return EmptyPermuted(), (r(2, 3, 4),)


# --- models --------------------------------------------------------------------------------------
class LlamaBlock(nn.Module):
    """RMSNorm, RoPE, a KV cache, GQA by repeat_interleave (is_causal) and by enable_gqa (with the
    bottom-right causal mask a cache needs, as a bool mask), SwiGLU."""

    def __init__(self, d=32, hq=4, hk=2):
        super().__init__()
        self.hq, self.hk, self.hd = hq, hk, d // hq
        self.n1, self.n2 = nn.RMSNorm(d, eps=1e-6), nn.RMSNorm(d)
        self.q = nn.Linear(d, d, bias=False)
        self.kv = nn.Linear(d, 2 * hk * self.hd, bias=False)
        self.o = nn.Linear(2 * d, d, bias=False)
        self.up, self.gate, self.down = nn.Linear(d, 48, bias=False), nn.Linear(d, 48, bias=False), nn.Linear(48, d, bias=False)

    def rope(self, t, cos, sin):
        t1, t2 = t.chunk(2, dim=-1)
        return t * cos + torch.cat([-t2, t1], -1) * sin

    def forward(self, x, past_k, past_v):
        B, T, D = x.shape
        P = past_k.shape[2]
        h = self.n1(x)
        q = self.q(h).view(B, T, self.hq, self.hd).transpose(1, 2)
        k, v = self.kv(h).view(B, T, 2, self.hk, self.hd).permute(2, 0, 3, 1, 4).unbind(0)
        pos = torch.arange(P, P + T, dtype=torch.float32)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2, dtype=torch.float32) / self.hd))
        ang = pos[:, None] * inv[None, :]
        cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
        q, k = self.rope(q, cos, sin), self.rope(k, cos, sin)
        k = torch.cat([past_k, k], 2)
        v = torch.cat([past_v, v], 2)
        kr = k.repeat_interleave(self.hq // self.hk, dim=1)
        vr = v.repeat_interleave(self.hq // self.hk, dim=1)
        a = F.scaled_dot_product_attention(q, kr, vr, is_causal=True)
        keep = torch.arange(P + T)[None, :] <= (torch.arange(T)[:, None] + P)
        a2 = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, enable_gqa=True)
        x = x + self.o(torch.cat([a, a2], -1).transpose(1, 2).reshape(B, T, 2 * D))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h)), k, v


# exported with past length 2 and a dynamic past axis, compared at past length 3
LLAMA_DYNAMIC = {"cli_inputs": ["float32[1,4,32]", "float32[1,2,2,8]", "float32[1,2,2,8]"],
                 "export_args": ["--dynamic-axes", "past_k=2:past", "--dynamic-axes", "past_v=2:past"]}


@case("llama_block_kv_cache", methods=("trace", "script"), native=("Attention", 23), **LLAMA_DYNAMIC)
def _():
    return LlamaBlock(), (r(1, 4, 32), r(1, 2, 3, 8), r(1, 2, 3, 8))


class BertLayer(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, 64), nn.Linear(64, d)

    def forward(self, x, bias):
        B, S, D = x.shape
        q, k, v = self.qkv(x).view(B, S, 3, self.heads, D // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        x = self.ln1(x + self.out(a.transpose(1, 2).reshape(B, S, D)))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class BertEncoder(nn.Module):
    """A BERT-style encoder: the padding mask as an additive bias from finfo(dtype).min."""

    def __init__(self, vocab=50, d=32):
        super().__init__()
        self.emb, self.pos = nn.Embedding(vocab, d), nn.Embedding(16, d)
        self.layers = nn.ModuleList([BertLayer(d), BertLayer(d)])

    def forward(self, ids, attention_mask):
        x = self.emb(ids) + self.pos(torch.arange(ids.shape[1]))[None]
        if torch.jit.is_scripting():
            lowest = -3.4028234663852886e38  # TorchScript has no torch.finfo: float32's min
        else:
            lowest = torch.finfo(x.dtype).min
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * lowest
        for layer in self.layers:
            x = layer(x, bias)
        return x


@case("bert_encoder", methods=("trace", "script"), native=("Attention", 23),
      cli_inputs=["int64[2,5]", "int64[2,5]"],
      export_args=["--dynamic-axes", "ids=0:batch,1:seq", "--dynamic-axes", "attention_mask=0:batch,1:seq"])
def _():
    ids = torch.randint(0, 50, (3, 7))
    am = torch.ones(3, 7, dtype=torch.int64)
    am[1, 5:] = 0
    am[2, 3:] = 0
    return BertEncoder(), (ids, am)


# Scripted, its fast-path checks read self_attn.in_proj_weight in a way freezing cannot make a
# constant: traced only.
@case("transformer_encoder_layer", native=("Attention", 23))
def _():  # traced with grad enabled (the default): the Python path, which calls SDPA
    return nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, batch_first=True), (r(2, 5, 16),)


class Mha(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x, pad):
        return self.mha(x, x, x, key_padding_mask=pad, need_weights=False)[0]


@case("multihead_attention", native=("Attention", 23))
def _():
    return Mha(), (r(2, 5, 16), torch.tensor([[False] * 5, [False] * 3 + [True] * 2]))


@case("torchvision_vit_tiny", native=("Attention", 23))
def _():
    from torchvision.models.vision_transformer import VisionTransformer
    m = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=16, mlp_dim=32,
                          num_classes=10)
    return m, (r(1, 3, 32, 32),)


@case("torchvision_mobilenet_v3_small")
def _():
    import torchvision
    return torchvision.models.mobilenet_v3_small(weights=None, width_mult=0.25, num_classes=10), (r(1, 3, 64, 64),)


# --- writing -------------------------------------------------------------------------------------
DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16", torch.int64: "int64",
          torch.int32: "int32", torch.bool: "bool", torch.uint8: "uint8"}


def spec(t):
    return f"{DTYPES[t.dtype]}[{','.join(str(d) for d in t.shape)}]"


def write(path, t):
    t = t.detach().contiguous()
    arr = t.numpy() if t.dtype != torch.bool else t.to(torch.uint8).numpy()
    arr.tofile(path)
    return {"file": os.path.basename(path), "dtype": DTYPES[t.dtype], "shape": list(t.shape)}


def flatten(out):
    if isinstance(out, (tuple, list)):
        return [y for o in out for y in flatten(o)]
    return [out]


def save_case(out_dir, name, method, build, extra):
    torch.manual_seed(int(hashlib.sha256(name.encode()).hexdigest()[:8], 16))
    model, inputs = build()
    if "error" not in name:
        model.eval()
    d = os.path.join(out_dir, name if method == "trace" else f"{name}_script")
    os.makedirs(d)
    if method == "trace":
        sm = torch.jit.trace(model, inputs, check_trace=False)
    else:
        sm = torch.jit.script(model)
    sm.save(os.path.join(d, "model.pt"))
    meta = {"method": method, "cli_inputs": extra.get("cli_inputs", [spec(t) for t in inputs]),
            "export_args": extra.get("export_args", [])}
    if "error" in extra:
        meta.update({"kind": "error", "expect_error": extra["error"]})
    else:
        with torch.no_grad():
            outputs = flatten(sm(*inputs))
        meta.update({"kind": "model", "rtol": extra.get("rtol", 1e-4),
                     "inputs": [write(os.path.join(d, f"in{i}.bin"), t) for i, t in enumerate(inputs)],
                     "outputs": [write(os.path.join(d, f"out{i}.bin"), t) for i, t in enumerate(outputs)]})
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return os.path.basename(d)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = argv[1]
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    torch.set_num_threads(1)
    import torchvision
    index = {"generator_sha256": hashlib.sha256(open(__file__, "rb").read()).hexdigest(),
             "torch": torch.__version__, "torchvision": torchvision.__version__, "cases": []}
    for name, build, opsets, native, extra in CASES:
        for method in extra.get("methods", ("trace",)):
            saved = save_case(out_dir, name, method, build, extra)
            entry = {"name": saved, "opsets": list(opsets), "kind": "error" if "error" in extra else "model"}
            if native:
                entry["native"] = {"op": native[0], "since": native[1]}
            index["cases"].append(entry)
            print(f"{saved}: {method}", flush=True)
    with open(os.path.join(out_dir, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
