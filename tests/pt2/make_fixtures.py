#!/usr/bin/env python3
"""Fixtures for the exported-program front end: programs saved by a real PyTorch 2.x with
torch.export.save (.pt2), their inputs and PyTorch's outputs, which the ctest label pt2 exports with
`torch2onnx export model.pt2 -o X.onnx --opset N`, runs in ONNX Runtime and compares
(tests/pt2/test_pt2.cpp). One generator for every PyTorch version; run it in each root of
scripts/torch2x_env.sh and commit the result:

    bash scripts/torch2x_env.sh run tests/pt2/make_fixtures.py tests/pt2/fixtures/torch2.6
    T2O_TORCH2X_SUITE=sid bash scripts/torch2x_env.sh run tests/pt2/make_fixtures.py tests/pt2/fixtures/torch2.14

Each model case is OUT/<name>/ with
  model.pt2       torch.export.save(torch.export.export(model.eval(), args, dynamic_shapes=...))
                  (a `<name>_core` case: the same program after ep.run_decompositions(), the core ATen IR)
  in<i>.bin, out<i>.bin, meta.json
                  raw little-endian arrays at the example sizes, in tests/ort/compare.js's format
                  (inputs/outputs: file, dtype, shape; rtol), outputs from ep.module()(*args)
  sizes<k>/       for a case with dynamic dims: the same at other sizes inside range_constraints
                  (its own meta.json and bins; "dims" says which sizes)
An error case is OUT/<name>/model.pt2 (a damaged or foreign archive) and meta.json
{"kind": "error", "expect_error": substring or list of substrings (any will do) of the one line}.

OUT/index.json: torch/torchvision versions, generator_sha256 (SHA-256 of this file: the test fails
when this file changed and the fixtures were not regenerated), and the cases: name, kind, opsets to
export at, ir ("training": what torch.export.export gives; "core": after run_decompositions()),
strict (the export mode used: the version's default, or non-strict when the default failed), dims
(dynamic dims: example size and range), sizes (the sizes<k> dirs). "skipped": cases this PyTorch
could not export, with the reason (printed too).

Everything is small (tiny widths, 1-2 blocks, 32x32 images, fixed seeds): keep each version's
fixtures under ~4 MB (the repository holds them).
"""
import hashlib
import io
import json
import os
import shutil
import sys
import traceback
import zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim
from torch.utils import _pytree as pytree

CASES = []


def case(name, opsets=(17,), core=False, rtol=1e-4):
    """A model case. The decorated function returns (model, make, dims, dynamic, others):
    make(**dims) -> args tuple; dims: example sizes; dynamic(D) -> dynamic_shapes given D, a dict of
    torch.export.Dim by dim name (None for a static case); others: a list of other dims dicts."""
    def deco(fn):
        CASES.append({"name": name, "fn": fn, "opsets": list(opsets), "core": core, "rtol": rtol})
        return fn
    return deco


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def static(model, *args):
    return model, (lambda: args), {}, None, []


# Dim ranges: name -> (min, max)
RANGES = {"batch": (1, 8), "seq": (2, 16), "step": (1, 8), "past": (1, 16), "n": (2, 32), "len": (2, 64)}


# --- models ------------------------------------------------------------------------------------
class TinyResNet(nn.Module):
    """torchvision's BasicBlock and Bottleneck at tiny widths."""

    def __init__(self, num_classes=10):
        super().__init__()
        from torchvision.models.resnet import BasicBlock, Bottleneck
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                                  nn.MaxPool2d(3, 2, 1))
        down1 = nn.Sequential(nn.Conv2d(8, 16, 1, 2, bias=False), nn.BatchNorm2d(16))
        self.layer1 = nn.Sequential(BasicBlock(8, 8), BasicBlock(8, 16, stride=2, downsample=down1))
        down2 = nn.Sequential(nn.Conv2d(16, 32, 1, 2, bias=False), nn.BatchNorm2d(32))
        self.layer2 = Bottleneck(16, 8, stride=2, downsample=down2)  # expansion 4: 8 -> 32
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


def randomize_bn(model):
    """Non-trivial running statistics, so batch norm is not an identity."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                if m.weight is not None:
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.2, 0.2)
    return model


@case("resnet_tiny", core=True)
def _():
    return (randomize_bn(TinyResNet()), lambda batch: (r(batch, 3, 32, 32),), {"batch": 2},
            lambda D: ({0: D["batch"]},), [{"batch": 1}])


@case("mobilenet_v3_small_tiny")
def _():
    from torchvision.models.mobilenetv3 import MobileNetV3, _mobilenet_v3_conf
    setting, _ = _mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.25)
    # Three blocks (ReLU with squeeze-excitation, ReLU without, Hardswish with; strides 2), a small head.
    m = MobileNetV3([setting[0], setting[1], setting[3]], last_channel=32, num_classes=10)
    return static(randomize_bn(m), r(1, 3, 32, 32))


@case("efficientnet_tiny")
def _():
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf
    setting, last = _efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.25)
    m = EfficientNet(setting[:2], dropout=0.2, stochastic_depth_prob=0.2, num_classes=10, last_channel=32)
    return static(randomize_bn(m), r(1, 3, 32, 32))


@case("vit_tiny", opsets=(17, 18, 23))
def _():
    from torchvision.models.vision_transformer import VisionTransformer
    m = VisionTransformer(image_size=32, patch_size=8, num_layers=1, num_heads=2, hidden_dim=16, mlp_dim=32,
                          num_classes=10)
    return (m, lambda batch: (r(batch, 3, 32, 32),), {"batch": 2}, lambda D: ({0: D["batch"]},), [{"batch": 1}])


@case("swin_tiny")
def _():
    from torchvision.models.swin_transformer import SwinTransformer
    # stage 1: two blocks (the second shifted: roll + attention mask), a patch merge, an empty stage 2
    m = SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 0], num_heads=[2, 4], window_size=[4, 4],
                        mlp_ratio=2.0, stochastic_depth_prob=0.0, num_classes=10)
    return static(m, r(1, 3, 32, 32))


@case("convnext_tiny")
def _():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    m = ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, None, 1)], stochastic_depth_prob=0.0,
                 layer_scale=0.5, num_classes=10)
    return static(m, r(1, 3, 32, 32))


@case("maxvit_tiny")
def _():
    # MaxViT's block and grid attention partition with x.swapaxes (kept under that name by the program)
    from torchvision.models.maxvit import MaxVit
    m = MaxVit(input_size=(32, 32), stem_channels=8, partition_size=2, block_channels=[16], block_layers=[1],
               head_dim=4, stochastic_depth_prob=0.0, num_classes=10)
    return static(randomize_bn(m), r(1, 3, 32, 32))


class OpAliases(nn.Module):
    """Ops under their NumPy-style names, which a program may keep (TorchScript's compiler renames them)."""

    def forward(self, x, y):
        return (x.swapaxes(0, 1), torch.swapdims(x, -1, 0), torch.absolute(x), torch.arccos(x.clamp(-1, 1)),
                torch.greater(x, y), torch.multiply(x, y), torch.clip(x, -0.5, 0.5), torch.negative(y),
                torch.true_divide(x, y.abs() + 1), torch.rsub(x, y, alpha=2))


@case("op_aliases")
def _():
    return (OpAliases(), lambda batch: (r(batch, 3, 4), r(batch, 3, 4)), {"batch": 2},
            lambda D: ({0: D["batch"]}, {0: D["batch"]}), [{"batch": 3}])


class TinySegmentation(nn.Module):
    """A DeepLabV3-like head (torchvision's ASPP: atrous convs + image pooling, interpolated back)
    and an FCN head, upsampled to the input size."""

    def __init__(self, classes=2):
        super().__init__()
        from torchvision.models.segmentation.deeplabv3 import ASPP
        from torchvision.models.segmentation.fcn import FCNHead
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.ReLU(),
                                      nn.Conv2d(8, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.aspp = nn.Sequential(ASPP(16, [2, 3], 16), nn.Conv2d(16, classes, 1))
        self.aux = FCNHead(16, classes)

    def forward(self, x):
        f = self.backbone(x)
        size = x.shape[-2:]
        out = F.interpolate(self.aspp(f), size=size, mode="bilinear", align_corners=False)
        aux = F.interpolate(self.aux(f), size=size, mode="nearest")
        return out, aux


@case("segmentation_tiny")
def _():
    return (randomize_bn(TinySegmentation()), lambda batch: (r(batch, 3, 32, 32),), {"batch": 2},
            lambda D: ({0: D["batch"]},), [{"batch": 1}])


class BertSdpaLayer(nn.Module):
    def __init__(self, d=16, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, 32), nn.Linear(32, d)

    def forward(self, x, bias):
        B, S, D = x.shape
        q, k, v = self.qkv(x).view(B, S, 3, self.heads, D // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        x = self.ln1(x + self.out(a.transpose(1, 2).reshape(B, S, D)))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class BertMhaLayer(nn.Module):
    def __init__(self, d=16, heads=2):
        super().__init__()
        self.mha = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, 32), nn.Linear(32, d)

    def forward(self, x, pad):
        x = self.ln1(x + self.mha(x, x, x, key_padding_mask=pad, need_weights=False)[0])
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x), approximate="tanh")))


class BertEncoder(nn.Module):
    """Token + position + type embeddings, LayerNorm, one nn.MultiheadAttention layer (key padding
    mask) and one manual-SDPA layer (additive mask from finfo.min), a pooler."""

    def __init__(self, vocab=30, d=16):
        super().__init__()
        self.emb, self.pos, self.typ = nn.Embedding(vocab, d), nn.Embedding(16, d), nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d)
        self.l0, self.l1 = BertMhaLayer(d), BertSdpaLayer(d)
        self.pool = nn.Linear(d, d)

    def forward(self, ids, attention_mask):
        S = ids.shape[1]
        x = self.emb(ids) + self.pos(torch.arange(S, device=ids.device))[None] + self.typ(torch.zeros_like(ids))
        x = self.ln(x)
        x = self.l0(x, attention_mask == 0)
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        x = self.l1(x, bias)
        return x, torch.tanh(self.pool(x[:, 0]))


def bert_inputs(batch, seq):
    ids = torch.randint(0, 30, (batch, seq))
    am = torch.ones(batch, seq, dtype=torch.int64)
    for b in range(1, batch):
        am[b, max(1, seq - 2 * b):] = 0
    return ids, am


@case("bert_encoder", opsets=(17, 18, 23), core=True)
def _():
    return (BertEncoder(), bert_inputs, {"batch": 2, "seq": 5},
            lambda D: ({0: D["batch"], 1: D["seq"]}, {0: D["batch"], 1: D["seq"]}),
            [{"batch": 3, "seq": 7}, {"batch": 1, "seq": 16}])


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.rand(d) + 0.5)

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(t):
    t1, t2 = t.chunk(2, dim=-1)
    return torch.cat([-t2, t1], -1)


class LlamaLayer(nn.Module):
    def __init__(self, d=16, hq=4, hk=2, ff=24):
        super().__init__()
        self.hq, self.hk, self.hd = hq, hk, d // hq
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
        self.q = nn.Linear(d, hq * self.hd, bias=False)
        self.k = nn.Linear(d, hk * self.hd, bias=False)
        self.v = nn.Linear(d, hk * self.hd, bias=False)
        self.o = nn.Linear(hq * self.hd, d, bias=False)
        self.gate, self.up, self.down = nn.Linear(d, ff, bias=False), nn.Linear(d, ff, bias=False), nn.Linear(ff, d, bias=False)

    def forward(self, x, cos, sin, past_k=None, past_v=None, mask=None):
        B, T, D = x.shape
        h = self.n1(x)
        q = self.q(h).view(B, T, self.hq, self.hd).transpose(1, 2)
        k = self.k(h).view(B, T, self.hk, self.hd).transpose(1, 2)
        v = self.v(h).view(B, T, self.hk, self.hd).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        if past_k is not None:
            k, v = torch.cat([past_k, k], 2), torch.cat([past_v, v], 2)
        rep = self.hq // self.hk
        kr, vr = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        if mask is None:
            a = F.scaled_dot_product_attention(q, kr, vr, is_causal=True)
        else:
            a = F.scaled_dot_product_attention(q, kr, vr, attn_mask=mask)
        x = x + self.o(a.transpose(1, 2).reshape(B, T, D))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h)), k, v


class LlamaDecoder(nn.Module):
    """Embedding, a layer (RMSNorm as module code, rotary embedding, GQA by repeat_interleave, SDPA,
    SiLU MLP), final norm, LM head. With a KV cache: past keys/values as inputs, the new ones as
    outputs, the causal mask offset by the past length."""

    def __init__(self, vocab=32, d=16, layers=1, cache=False):
        super().__init__()
        self.cache = cache
        self.emb = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList([LlamaLayer(d) for _ in range(layers)])
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.hd = d // 4
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd)),
                             persistent=False)

    def forward(self, ids):
        return self.run(ids, ())

    def run(self, ids, past):
        B, T = ids.shape
        P = past[0].shape[2] if self.cache else 0
        pos = torch.arange(P, P + T, device=ids.device).float()
        ang = pos[:, None] * self.inv_freq[None, :]
        emb = torch.cat([ang, ang], -1)
        cos, sin = emb.cos()[None, None], emb.sin()[None, None]
        mask = None
        if self.cache:
            mask = torch.arange(P + T)[None, :] <= (torch.arange(T)[:, None] + P)
        x = self.emb(ids)
        new = []
        for i, layer in enumerate(self.layers):
            if self.cache:
                x, k, v = layer(x, cos, sin, past[2 * i], past[2 * i + 1], mask)
                new += [k, v]
            else:
                x, _, _ = layer(x, cos, sin)
        logits = self.head(self.norm(x))
        return (logits, *new) if self.cache else logits


class LlamaDecoderCache(LlamaDecoder):
    def __init__(self):
        super().__init__(cache=True)

    def forward(self, ids, past_k, past_v):
        return self.run(ids, (past_k, past_v))


@case("llama_decoder", opsets=(17, 18, 23))
def _():
    return (LlamaDecoder(), lambda batch, seq: (torch.randint(0, 32, (batch, seq)),), {"batch": 2, "seq": 6},
            lambda D: ({0: D["batch"], 1: D["seq"]},), [{"batch": 1, "seq": 9}, {"batch": 3, "seq": 2}])


def llama_cache_inputs(batch, step, past):
    ids = torch.randint(0, 32, (batch, step))
    return ids, r(batch, 2, past, 4), r(batch, 2, past, 4)


@case("llama_decoder_kv_cache", opsets=(17, 23), core=True)
def _():
    def dyn(D):
        kv = {0: D["batch"], 2: D["past"]}
        return ({0: D["batch"], 1: D["step"]}, kv, kv)
    # a prompt of 3 after 4 cached positions; one decoding step after 7; 5 after 1
    return (LlamaDecoderCache(), llama_cache_inputs, {"batch": 2, "step": 3, "past": 4}, dyn,
            [{"batch": 1, "step": 1, "past": 7}, {"batch": 3, "step": 5, "past": 1}])


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 8, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x, state):
        y, (h, c) = self.rnn(x, state)
        return self.fc(y), h, c


@case("lstm")
def _():
    def make(batch, seq):
        return r(batch, seq, 8), (r(4, batch, 8), r(4, batch, 8))
    # dynamic batch only: export specializes the sequence length of aten.lstm ("inferred to be a
    # constant") in 2.6 and 2.14
    return (Lstm(), lambda batch: make(batch, 5), {"batch": 2},
            lambda D: ({0: D["batch"]}, ({1: D["batch"]}, {1: D["batch"]})), [{"batch": 3}])


class Gru(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 12, num_layers=1)  # sequence first, no initial state

    def forward(self, x):
        y, h = self.rnn(x)
        return y, h


@case("gru")
def _():
    return (Gru(), lambda batch: (r(6, batch, 8),), {"batch": 2}, lambda D: ({1: D["batch"]},), [{"batch": 1}])


# --- op families ---------------------------------------------------------------------------------
# Outputs of one shape and dtype are stacked into one (fewer files; a mismatch's worst_index names
# the op by its position in the stack).
class Elementwise(nn.Module):
    def forward(self, x, y):
        p = x.abs() + 0.1
        return torch.stack([
            x + y, x - 2.5 * y, x * y, x / (y.abs() + 0.5), torch.pow(p, 1.5), p ** y, torch.exp(x), torch.log(p),
            torch.sqrt(p), torch.rsqrt(p), -x, torch.sin(x), torch.cos(x), torch.tanh(x), torch.sigmoid(x),
            torch.clamp(x, -0.5, 0.5), torch.floor(x * 3), torch.ceil(x * 3), torch.round(x * 3),
            torch.sign(x), torch.reciprocal(p), torch.erf(x), torch.maximum(x, y), torch.minimum(x, y),
            torch.remainder(x * 4, 1.5), torch.fmod(x * 4, 1.5), torch.atan(x), torch.log1p(p),
            torch.expm1(x), torch.trunc(x * 3), torch.square(x), x.clamp_min(0.1), torch.hypot(x, y),
            torch.lerp(x, y, 0.3), torch.addcmul(x, x, y, value=0.5)])


@case("ops_elementwise", core=True)
def _():
    return static(Elementwise(), r(3, 4), r(3, 4))


class Broadcast(nn.Module):
    def forward(self, x, row, s):
        return torch.stack([x + row, x * s, (x - row) / 2, torch.where(x > row, x, s)])


@case("ops_broadcast_dynamic")
def _():
    return (Broadcast(), lambda n, len: (r(n, len), r(1, len), r(())), {"n": 3, "len": 5},
            lambda D: ({0: D["n"], 1: D["len"]}, {1: D["len"]}, None), [{"n": 2, "len": 9}])


class Reductions(nn.Module):
    def forward(self, x):  # x [2, n, 4]
        mx = x.max(dim=1)
        return (torch.stack([x.sum(dim=1), mx.values, x.prod(dim=1), x.var(dim=1), x.norm(p=1, dim=1),
                             torch.logsumexp(x, dim=1)]),                                        # [2, 4]
                torch.stack([x.amax(dim=-1), x.std(dim=2, correction=0), torch.linalg.vector_norm(x, dim=-1)]),  # [2, n]
                torch.stack([x.amin(dim=0), torch.var_mean(x, dim=0)[1]]),                       # [n, 4]
                torch.stack([x.sum(), x.max(), x.min()]), x.mean(dim=(1, 2), keepdim=True),
                mx.indices, x.argmax(dim=2), x.argmin(), (x > 0).all(dim=1), (x > 1).any(dim=2))


@case("ops_reductions", opsets=(17, 18), core=True)
def _():
    return static(Reductions(), r(2, 3, 4))


@case("ops_reductions_dynamic", opsets=(17, 18))
def _():
    return (Reductions(), lambda n: (r(2, n, 4),), {"n": 3}, lambda D: ({1: D["n"]},), [{"n": 6}])


class Indexing(nn.Module):
    def forward(self, x, idx, y):  # x [B, 6, 4], idx [3], y [B, 3, 4]
        gidx = idx[None, :, None].expand(x.shape[0], idx.shape[0], x.shape[2])
        z = x.clone()
        z[:, 0] = 1.0
        s1, s2 = torch.split(x, [2, 4], dim=1)
        return (torch.stack([torch.flip(x, [1, 2]), torch.roll(x, 2, 1), x.unsqueeze(1).squeeze(1), z,
                             x.index_put((torch.tensor([0]), idx[:2]), torch.tensor(5.0))]),       # [B, 6, 4]
                torch.stack([torch.index_select(x, 1, idx), torch.gather(x, 1, gidx), x[:, :1].expand(-1, 3, -1),
                             x[:, idx]]),                                                          # [B, 3, 4]
                torch.stack([x[:, 1:5:2], torch.stack([x[:, 0], y[:, 0]], dim=1), s1]),            # [B, 2, 4]
                torch.stack([x.narrow(2, 1, 2), x.chunk(2, dim=2)[1]]),                            # [B, 6, 2]
                torch.stack([x.reshape(x.shape[0], -1), x.flatten(1)]),                            # [B, 24]
                x[..., -3:], x[1], torch.cat([x, y], dim=1), s2, x.permute(2, 0, 1), x.transpose(0, 1).contiguous(),
                x.repeat(1, 2, 1), torch.zeros(x.shape[0], 8, x.shape[2]).scatter_add(1, gidx, x[:, :3]))


@case("ops_indexing", core=True)
def _():
    return static(Indexing(), r(2, 6, 4), torch.tensor([4, 0, 2]), r(2, 3, 4))


@case("ops_indexing_dynamic")
def _():
    return (Indexing(), lambda batch: (r(batch, 6, 4), torch.tensor([4, 0, 2]), r(batch, 3, 4)), {"batch": 2},
            lambda D: ({0: D["batch"]}, None, {0: D["batch"]}), [{"batch": 5}])


class ConvPoolNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 6, 3, padding=1)
        self.c2 = nn.Conv2d(4, 8, 3, stride=2, padding=1)
        self.cg = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=4)
        self.ct = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.bn = nn.BatchNorm2d(8)
        self.gn = nn.GroupNorm(2, 8)
        self.inn = nn.InstanceNorm2d(4, affine=True)
        self.ln = nn.LayerNorm([8])
        self.bn1 = nn.BatchNorm1d(6)

    def forward(self, x, s):
        y = self.bn(self.c2(x))
        y = self.gn(self.cg(y))
        t = self.ct(y)
        return (torch.stack([self.inn(t), F.avg_pool2d(x, 3, stride=1, padding=1)]), F.max_pool2d(x, 2),
                F.adaptive_avg_pool2d(y, 1), F.max_pool2d(x, 3, stride=2, padding=1), self.ln(y.permute(0, 2, 3, 1)),
                self.bn1(self.c1(s)), F.max_pool1d(s, 2), F.adaptive_max_pool2d(x, (2, 2)),
                F.avg_pool2d(x, 3, stride=2, ceil_mode=True, count_include_pad=False))


@case("ops_conv_pool_norm", core=True)
def _():
    return static(randomize_bn(ConvPoolNorm()), r(2, 4, 8, 8), r(2, 4, 10))


class Activations(nn.Module):
    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU(4, init=0.2)

    def forward(self, x):
        return torch.stack([
            F.softmax(x, -1), F.log_softmax(x, 1), F.relu(x), F.leaky_relu(x, 0.1), F.elu(x), F.selu(x),
            F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.mish(x), F.hardswish(x), F.hardsigmoid(x),
            F.softplus(x), F.relu6(x * 4), self.prelu(x), F.logsigmoid(x), F.celu(x, 0.5),
            F.hardtanh(x, -0.5, 0.5), F.softsign(x), F.tanhshrink(x), F.hardshrink(x, 0.3),
            F.threshold(x, 0.2, -1.0)]), F.glu(x, -1)


@case("ops_activations", core=True)
def _():
    return static(Activations(), r(2, 4, 6))


class Matmul(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 5)
        self.nobias = nn.Linear(4, 3, bias=False)
        self.w = nn.Parameter(torch.randn(4, 6))
        self.b = nn.Parameter(torch.randn(6))

    def forward(self, a, b, c):  # a [B, 3, 4], b [B, 4, 6], c [B, 3, 6]
        return (torch.stack([torch.matmul(a, b), torch.bmm(a, b), torch.einsum("bij,bjk->bik", a, b),
                             torch.baddbmm(c, a, b, beta=0.5, alpha=2.0), torch.matmul(a, b[0])]),
                torch.stack([a[0] @ b[0], torch.addmm(self.b, a[0], self.w)]), self.lin(a), self.nobias(a),
                torch.einsum("bij->bj", a), torch.outer(a[0, 0], b[0, :, 0]), torch.matmul(a[0, 0], b[0]),
                torch.mv(a[0], b[0, :, 0]))


@case("ops_matmul")
def _():
    return static(Matmul(), r(2, 3, 4), r(2, 4, 6), r(2, 3, 6))


@case("ops_matmul_dynamic")
def _():
    return (Matmul(), lambda batch: (r(batch, 3, 4), r(batch, 4, 6), r(batch, 3, 6)), {"batch": 2},
            lambda D: ({0: D["batch"]}, {0: D["batch"]}, {0: D["batch"]}), [{"batch": 4}])


class CumSortTopk(nn.Module):
    def forward(self, x):
        s = torch.sort(x, dim=-1, descending=True)
        t = torch.topk(x, 3, dim=1)
        t2 = torch.topk(x, 2, dim=-1, largest=False)
        return (torch.stack([torch.cumsum(x, 1), torch.cumsum(x, -1), torch.cumprod(x, 0), s.values,
                             torch.sort(x, dim=1).values, torch.cummax(x, 1).values]),
                torch.stack([s.indices, torch.argsort(x, dim=0)]), t.values, t.indices, t2.values, t2.indices)


@case("ops_cumsum_sort_topk")
def _():
    return static(CumSortTopk(), r(3, 5, 4))


@case("ops_cumsum_sort_topk_dynamic")
def _():
    return (CumSortTopk(), lambda n: (r(n, 5, 4),), {"n": 3}, lambda D: ({0: D["n"]},), [{"n": 5}])


class WhereMask(nn.Module):
    def forward(self, x, y, m):
        return (torch.stack([torch.where(m, x, y), x.masked_fill(~m, -1.0), torch.where(x > 0, x, 0.0),
                             torch.clamp(x, min=y, max=y + 1), torch.triu(x), torch.tril(x, -1),
                             torch.nan_to_num(torch.log(x)), x * m]),
                torch.stack([x > y, x == y.round(), x != 0.5, x <= y, torch.logical_and(m, x > 0),
                             torch.logical_or(m, x < -1), torch.logical_not(m), torch.isnan(x / x.abs().round()),
                             torch.logical_xor(m, x > 0)]))


@case("ops_where_masking")
def _():
    return static(WhereMask(), r(3, 4), r(3, 4), torch.rand(3, 4) > 0.5)


@case("ops_where_masking_dynamic")
def _():
    return (WhereMask(), lambda n: (r(n, 4), r(n, 4), torch.rand(n, 4) > 0.5), {"n": 3},
            lambda D: ({0: D["n"]}, {0: D["n"]}, {0: D["n"]}), [{"n": 6}])


class Casts(nn.Module):
    def forward(self, x, i):
        return (x.to(torch.int64), x.int(), i.float(), (x * 10).to(torch.int32).to(torch.float64),
                x.half().float(), x.to(torch.float16), (x > 0).to(torch.float32), i.to(torch.bool), x.double() * 2,
                i.type_as(x) / 3, (i % 7).to(torch.uint8), x.to(torch.bfloat16).float(), i.to(torch.int32) + 1,
                torch.ones_like(x, dtype=torch.int64), i / 2)


@case("ops_dtype_casts", rtol=1e-2)
def _():
    return static(Casts(), r(3, 4) * 4, torch.randint(-20, 20, (3, 4)))


class IntOps(nn.Module):
    def forward(self, a, b, c):  # a, b int64 [3, 4]; c int32 [4, 2]
        bb = b.abs() + 1
        return (torch.stack([a + b, a - b, a * b, torch.floor_divide(a, bb), torch.remainder(a, bb), a // 3, a % 5,
                             torch.bitwise_and(a, b), torch.bitwise_or(a, b), torch.bitwise_xor(a, b), a.abs(), -a,
                             torch.maximum(a, b), a.clamp(-3, 3), a.cumsum(0), torch.div(a, bb, rounding_mode="trunc"),
                             torch.div(a, bb, rounding_mode="floor"), a.pow(2), torch.sign(a)]),
                torch.stack([a.sum(dim=1), a.argmax(dim=1), a.prod(dim=1)]), torch.stack([(a > b).sum(), a.min()]),
                torch.stack([c * 2 + 1, c // 2]), c.max(dim=0).values)


@case("ops_int")
def _():
    return static(IntOps(), torch.randint(-10, 10, (3, 4)), torch.randint(-10, 10, (3, 4)),
                  torch.randint(-100, 100, (4, 2), dtype=torch.int32))


class SymShapes(nn.Module):
    """Sizes computed from dynamic dims: views, new tensors, arange, expand, padding to a length."""

    def forward(self, x, y):
        B, S, D = x.shape
        flat = x.reshape(B * S, D)
        halves = x.view(B, S, 2, D // 2).sum(2)
        pos = torch.arange(S, dtype=torch.float32)[None, :, None] + torch.zeros(B, 1, 1)
        z = x.new_zeros(B, S + 1, D)
        o = torch.ones(B, S, dtype=torch.int64).cumsum(1)
        e = y[:, None, :].expand(B, S, y.shape[1])
        full = torch.ones(S, 2) * S
        cat = torch.cat([x, y[:, None, :D].expand(B, 1, D)], 1)
        mean = x.sum(1) / S
        last = x[:, -1]
        return flat, halves, pos, z, o, e, full, cat, mean, last, x.flatten(0, 1).unflatten(0, (B, S))


@case("ops_symbolic_shapes")
def _():
    return (SymShapes(), lambda batch, seq: (r(batch, seq, 4), r(batch, 6)), {"batch": 2, "seq": 5},
            lambda D: ({0: D["batch"], 1: D["seq"]}, {0: D["batch"]}), [{"batch": 3, "seq": 2}, {"batch": 1, "seq": 12}])


class Creation(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4, padding_idx=0)

    def forward(self, ids, x):
        return (self.emb(ids), F.one_hot(ids, 10), torch.arange(2, 11, 3), torch.zeros(2, 3) + x.sum(),
                torch.full((2, 2), 7, dtype=torch.int64), torch.linspace(0, 1, 5) * x.mean(), torch.eye(3) * x[0, 0],
                torch.ones(3).diag(), torch.zeros_like(x), torch.empty(2, 2).fill_(3.0), torch.tensor([1.5, -2.0]) * x[0, :2])


@case("ops_creation")
def _():
    return static(Creation(), torch.randint(0, 10, (2, 5)), r(3, 4))


class Resample(nn.Module):
    def forward(self, x):
        return (F.interpolate(x, scale_factor=2, mode="nearest"), F.interpolate(x, size=(5, 7), mode="bilinear"),
                F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True),
                F.interpolate(x, size=(3, 3), mode="bicubic", align_corners=False),
                F.pixel_shuffle(x, 2), F.pixel_unshuffle(x, 2), F.pad(x, (1, 2, 0, 1)), F.pad(x, (2, 2, 1, 1), mode="reflect"),
                F.pad(x, (1, 1, 1, 1), mode="replicate"), F.pad(x, (1, 0, 0, 1), value=-3.0))


@case("ops_resample_pad")
def _():
    return static(Resample(), r(1, 4, 4, 6))


# --- error cases ---------------------------------------------------------------------------------
ERRORS = []


def error(name, expect):
    def deco(fn):
        ERRORS.append({"name": name, "fn": fn, "expect": expect})
        return fn
    return deco


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        return F.relu(self.lin(x))


def small_pt2(path):
    torch.manual_seed(0)
    ep = torch.export.export(Small().eval(), (r(2, 4),))
    torch.export.save(ep, path)


def program_member(names):
    """The program JSON's member: serialized_exported_program.json (2.6) or models/<name>.json (2.8+)."""
    for n in names:
        if n.endswith("serialized_exported_program.json"):
            return n
    for n in names:
        parts = n.split("/")
        if len(parts) >= 2 and parts[-2] == "models" and n.endswith(".json"):
            return n
    raise RuntimeError(f"no program JSON among {names}")


def rewrite_member(src, dst, pick, edit):
    """Copies the zip SRC to DST with edit(bytes) -> bytes (or None: leave the member out) applied to
    the member pick(names) chooses; the other members' bytes, order and compression unchanged.
    Records stay where Python's zipfile puts them (a PT2 archive's 64-byte alignment of records
    after the edited one is not kept: the edited archives must be refused before any weight is read)."""
    with zipfile.ZipFile(src) as zin:
        names = zin.namelist()
        target = pick(names)
        with zipfile.ZipFile(dst, "w") as zout:
            for info in zin.infolist():
                data = zin.read(info.filename)
                if info.filename == target:
                    data = edit(data)
                    if data is None:
                        continue
                zout.writestr(info, data)
    return target


def edit_json(fn):
    def edit(data):
        j = json.loads(data)
        fn(j)
        return json.dumps(j).encode()
    return edit


@error("error_truncated", ["truncated", "zip", "archive", "corrupt", "end of central directory"])
def _(path, tmp):
    small_pt2(tmp)
    data = open(tmp, "rb").read()
    open(path, "wb").write(data[:len(data) // 2])


@error("error_not_a_program", ["not an exported program", "serialized_exported_program.json", "model.json",
                               "no program"])
def _(path, tmp):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("hello.txt", "a plain zip, not a program\n")
        z.writestr("data/numbers.bin", bytes(range(64)))


@error("error_schema_major_99", "99")
def _(path, tmp):
    small_pt2(tmp)

    def bump(j):
        j["schema_version"]["major"] = 99
    rewrite_member(tmp, path, program_member, edit_json(bump))


@error("error_wrong_field_type", "target")
def _(path, tmp):  # a node's target a number instead of a string
    small_pt2(tmp)

    def wrong(j):
        j["graph_module"]["graph"]["nodes"][0]["target"] = 12345
    rewrite_member(tmp, path, program_member, edit_json(wrong))


@error("error_missing_field", "graph_module")
def _(path, tmp):
    small_pt2(tmp)
    rewrite_member(tmp, path, program_member, edit_json(lambda j: j.pop("graph_module")))


@error("error_missing_weights", ["weight", "state_dict"])
def _(path, tmp):  # the archive without the member holding the parameters
    small_pt2(tmp)

    def pick(names):
        for n in names:
            if n.endswith("serialized_state_dict.pt") or n.endswith("data/weights/weight_0"):
                return n
        raise RuntimeError(f"no weights member among {names}")
    rewrite_member(tmp, path, pick, lambda data: None)


@error("error_custom_op", ["t2o_test", "scale_shift"])
def _(path, tmp):  # an op no pack converts: refused, naming it
    lib = torch.library.Library("t2o_test", "FRAGMENT")
    lib.define("scale_shift(Tensor x, float s) -> Tensor")
    lib.impl("scale_shift", lambda x, s: x * s + 1.0, "CompositeExplicitAutograd")
    lib.impl("scale_shift", lambda x, s: torch.empty_like(x), "Meta")

    class UsesCustom(nn.Module):
        def forward(self, x):
            return torch.ops.t2o_test.scale_shift(x, 2.0) + 1

    ep = torch.export.export(UsesCustom(), (r(2, 3),))
    torch.export.save(ep, path)
    ERROR_LIBS.append(lib)


ERROR_LIBS = []  # keep the custom-op library alive for the run


# --- writing -------------------------------------------------------------------------------------
DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16", torch.int64: "int64",
          torch.int32: "int32", torch.int16: "int16", torch.int8: "int8", torch.bool: "bool", torch.uint8: "uint8"}


def write(path, t):
    t = t.detach().contiguous()
    arr = t.numpy() if t.dtype != torch.bool else t.to(torch.uint8).numpy()
    arr.tofile(path)
    return {"file": os.path.basename(path), "dtype": DTYPES[t.dtype], "shape": list(t.shape)}


def write_set(d, args, outputs, rtol, extra=None):
    os.makedirs(d, exist_ok=True)
    flat_in = pytree.tree_leaves(args)
    flat_out = pytree.tree_leaves(outputs)
    meta = {"kind": "model", "rtol": rtol}
    meta.update(extra or {})
    meta["inputs"] = [write(os.path.join(d, f"in{i}.bin"), t) for i, t in enumerate(flat_in)]
    meta["outputs"] = [write(os.path.join(d, f"out{i}.bin"), t) for i, t in enumerate(flat_out)]
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def seed_of(text):
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def export(model, args, dynamic_shapes):
    """torch.export.export with the version's default mode; non-strict when the default fails.
    Returns (ep, strict) where strict is None for the default mode."""
    try:
        return torch.export.export(model, args, dynamic_shapes=dynamic_shapes), None
    except Exception as first:
        try:
            return torch.export.export(model, args, dynamic_shapes=dynamic_shapes, strict=False), False
        except Exception:
            raise first


def one_line(e):
    """The exception's first line, and the first line of its detail ("  - ...") when there is one."""
    text = f"{type(e).__name__}: {e}".strip().splitlines()
    if not text:
        return type(e).__name__
    detail = [t.strip() for t in text[1:] if t.strip().startswith("- ")]
    return (text[0] + (" " + detail[0] if detail else ""))[:400]


def make_model_case(out_dir, c, index):
    name = c["name"]
    torch.manual_seed(seed_of(name))
    model, make, dims, dynamic, others = c["fn"]()
    model.eval()
    args = make(**dims)
    D = {k: Dim(k, min=RANGES[k][0], max=RANGES[k][1]) for k in dims}
    dynamic_shapes = dynamic(D) if dynamic else None
    ep, strict = export(model, args, dynamic_shapes)
    variants = [(name, "training", ep)]
    if c["core"]:
        try:
            variants.append((name + "_core", "core", ep.run_decompositions()))
        except Exception as e:
            print(f"SKIP {name}_core: run_decompositions failed: {one_line(e)}", flush=True)
            index["skipped"].append({"name": name + "_core", "reason": "run_decompositions: " + one_line(e)})
    for vname, ir, prog in variants:
        d = os.path.join(out_dir, vname)
        os.makedirs(d)
        torch.export.save(prog, os.path.join(d, "model.pt2"))
        mod = prog.module()
        with torch.no_grad():
            outputs = mod(*args)
        write_set(d, args, outputs, c["rtol"], {"dims": dims} if dims else None)
        entry = {"name": vname, "kind": "model", "opsets": c["opsets"], "ir": ir,
                 "strict": "default" if strict is None else "non-strict"}
        if dims:
            entry["dims"] = {k: {"example": v, "min": RANGES[k][0], "max": RANGES[k][1]} for k, v in dims.items()}
        sizes = []
        for k, other in enumerate(others, 1):
            torch.manual_seed(seed_of(f"{name}/sizes{k}"))
            oargs = make(**other)
            with torch.no_grad():
                oout = mod(*oargs)
            write_set(os.path.join(d, f"sizes{k}"), oargs, oout, c["rtol"], {"dims": other})
            sizes.append(f"sizes{k}")
        if sizes:
            entry["sizes"] = sizes
        index["cases"].append(entry)
        print(f"{vname}: {ir}{'' if strict is None else ' (non-strict)'}"
              f"{' dims ' + json.dumps(dims) if dims else ''}{' + ' + ', '.join(sizes) if sizes else ''}", flush=True)


def make_error_case(out_dir, e, index):
    d = os.path.join(out_dir, e["name"])
    os.makedirs(d)
    tmp = os.path.join(out_dir, ".tmp.pt2")
    try:
        e["fn"](os.path.join(d, "model.pt2"), tmp)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"kind": "error", "expect_error": e["expect"]}, f, indent=1)
    index["cases"].append({"name": e["name"], "kind": "error", "opsets": [17]})
    print(f"{e['name']}: error case", flush=True)


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
    index = {"torch": torch.__version__, "torchvision": torchvision.__version__,
             "generator_sha256": hashlib.sha256(open(__file__, "rb").read()).hexdigest(),
             "cases": [], "skipped": []}
    only = set(os.environ.get("T2O_PT2_ONLY", "").split(",")) - {""}  # for debugging a few cases
    for c in CASES:
        if only and c["name"] not in only:
            continue
        try:
            make_model_case(out_dir, c, index)
        except Exception as e:
            for n in (c["name"], c["name"] + "_core"):
                shutil.rmtree(os.path.join(out_dir, n), ignore_errors=True)
            index["cases"] = [x for x in index["cases"] if x["name"] not in (c["name"], c["name"] + "_core")]
            print(f"SKIP {c['name']}: {one_line(e)}", flush=True)
            if os.environ.get("T2O_PT2_TRACE"):
                traceback.print_exc()
            index["skipped"].append({"name": c["name"], "reason": one_line(e)})
    for e in ERRORS:
        if only and e["name"] not in only:
            continue
        make_error_case(out_dir, e, index)
    with open(os.path.join(out_dir, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
