#!/usr/bin/env python3
"""Probe models for the PyTorch 2.x -> libtorch 1.13 gap: which ops TorchScript 2.x *emits*.

Run under PyTorch 2.x (the Debian 13 root):
    bash scripts/torch2x_env.sh run -o OUTDIR tests/torch2x/probe_models.py OUTDIR [NAME_REGEX]

For each probe it traces and/or scripts a small eval-mode model, saves it as OUTDIR/<name>.pt with
its inputs and PyTorch's outputs (OUTDIR/<name>.npz: in0.., out0..), its serialized code
(OUTDIR/<name>.code.txt), and writes OUTDIR/emitted.json: for each .pt the aten::/prim:: node kinds of
its inlined graph (after torch.jit.load) with their schemas, and the archive's version records.
probe_load.py then loads the same files with another PyTorch (1.13) and records what happens.
"""
import json
import os
import re
import sys
import zipfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
PROBES = []  # (name, mode, factory, inputs-factory, note)


def probe(name, mode="trace,script", note=""):
    def deco(fn):
        PROBES.append((name, mode, fn, note))
        return fn
    return deco


def r(*shape):
    return torch.randn(*shape)


# --- SDPA ------------------------------------------------------------------------------------------
class Sdpa(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def forward(self, q, k, v, mask: torch.Tensor):
        if self.kind == "plain":
            return F.scaled_dot_product_attention(q, k, v)
        if self.kind == "causal":
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        if self.kind == "mask":
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        if self.kind == "scale":
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.25)
        if self.kind == "gqa":
            return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        # "dropout": the Hugging Face pattern, a dropout probability that is 0 in eval
        p = 0.1 if self.training else 0.0
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)


def qkv(L=5, S=5, hq=4, hk=4, E=8):
    return r(2, hq, L, E), r(2, hk, S, E), r(2, hk, S, E)


@probe("sdpa_plain")
def _():
    return Sdpa("plain"), (*qkv(), torch.zeros(1))


@probe("sdpa_causal")
def _():
    return Sdpa("causal"), (*qkv(3, 5), torch.zeros(1))


@probe("sdpa_mask_bool")
def _():
    return Sdpa("mask"), (*qkv(), torch.rand(2, 1, 5, 5) > 0.3)


@probe("sdpa_mask_float")
def _():
    m = torch.zeros(2, 1, 1, 5)
    m[..., -2:] = torch.finfo(torch.float32).min
    return Sdpa("mask"), (*qkv(), m)


@probe("sdpa_scale")
def _():
    return Sdpa("scale"), (*qkv(), r(5, 5))


@probe("sdpa_gqa")
def _():
    return Sdpa("gqa"), (*qkv(hq=8, hk=2), torch.zeros(1))


@probe("sdpa_dropout_eval")
def _():
    return Sdpa("dropout"), (*qkv(), torch.zeros(2, 1, 1, 5))


# --- RMSNorm ----------------------------------------------------------------------------------------
@probe("rmsnorm_module")
def _():
    m = nn.RMSNorm(16)
    with torch.no_grad():
        m.weight.uniform_(0.5, 1.5)
    return m, (r(2, 3, 16),)


@probe("rmsnorm_module_eps")
def _():
    return nn.RMSNorm([3, 16], eps=1e-6, elementwise_affine=False), (r(2, 3, 16),)


class FRms(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(16) + 0.5)

    def forward(self, x):
        return F.rms_norm(x, (16,), self.w, 1e-5) + F.rms_norm(x, [16])


@probe("f_rms_norm")
def _():
    return FRms(), (r(2, 3, 16),)


# --- shape / reduction overloads ---------------------------------------------------------------------
class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class SqueezeDims(nn.Module):
    def forward(self, x):
        return x.squeeze((0, 2)) * 2, torch.squeeze(x, dim=(0, 2, 3))


@probe("squeeze_dims")
def _():
    return SqueezeDims(), (r(1, 3, 1, 4),)


class AllAnyDims(nn.Module):
    def forward(self, x):
        b = x > 0
        return b.all(dim=(0, 1)), b.any(dim=(1, 2), keepdim=True), torch.all(b, dim=[0, 2])


@probe("all_any_dims")
def _():
    return AllAnyDims(), (r(2, 3, 4),)


class LinLogTensor(nn.Module):
    def forward(self, x):
        lo, hi = x.min(), x.max()
        return torch.linspace(lo, hi, 5), torch.linspace(0.0, hi, 4), torch.logspace(lo, 2.0, 3, base=2.0)


@probe("linspace_tensor")
def _():
    return LinLogTensor(), (r(6),)


class NonzeroStatic(nn.Module):
    def forward(self, x):
        return torch.nonzero_static(x > 0, size=6, fill_value=-1)


@probe("nonzero_static")
def _():
    return NonzeroStatic(), (r(3, 4),)


class EmptyPermuted(nn.Module):
    def forward(self, x):
        e = torch.empty_permuted((x.shape[0], 3, 4), (0, 2, 1))
        return e.fill_(1.0) + x


@probe("empty_permuted")
def _():
    return EmptyPermuted(), (r(2, 3, 4),)


class Softmaxes(nn.Module):
    def forward(self, x):
        return F.softmax(x, -1), F.softmax(x, dim=1, dtype=torch.float64), torch.softmax(x, 0), x.log_softmax(-1)


@probe("softmax")
def _():
    return Softmaxes(), (r(2, 3, 4),)


class StdVar(nn.Module):
    def forward(self, x):
        return (torch.var(x, dim=1, correction=0), x.std(correction=2), torch.var_mean(x, 1, correction=1)[0],
                torch.std(x, 1, unbiased=False), x.var())


@probe("std_var_correction")
def _():
    return StdVar(), (r(3, 5),)


class PadSeq(nn.Module):
    def forward(self, a, b):
        return (torch.nn.utils.rnn.pad_sequence([a, b], batch_first=True, padding_side="left"),
                torch.nn.utils.rnn.pad_sequence([a, b]))


@probe("pad_sequence_side")
def _():
    return PadSeq(), (r(3, 2), r(5, 2))


class VarFloatCorrection(nn.Module):
    def forward(self, x):
        return torch.var(x, dim=1, correction=0.5), torch.std(x, correction=1.5)


@probe("var_float_correction", note="correction became Scalar? (2.0); 1.13's is int?")
def _():
    return VarFloatCorrection(), (r(3, 5),)


class AssertAsync(nn.Module):
    def forward(self, x):
        torch._assert_async(x.abs().sum() >= 0, "negative norm")
        return x + 1


@probe("assert_async_msg")
def _():
    return AssertAsync(), (r(3),)


@probe("bn_prelu", mode="trace,script,trace_nograd",
       note="BatchNorm2d + PReLU: do _native_batch_norm_legit* / _prelu_kernel appear? (no: batch_norm, prelu)")
def _():
    m = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4), nn.PReLU(4), nn.InstanceNorm2d(4), nn.GroupNorm(2, 4))
    with torch.no_grad():
        m[1].running_mean.uniform_(-1, 1)
        m[1].running_var.uniform_(0.5, 2)
    return m, (r(1, 2, 6, 6),)


# --- nn modules with fast paths ------------------------------------------------------------------------
class Mha(nn.Module):
    def __init__(self, need_weights, mask):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 4, batch_first=True)
        self.need_weights = need_weights
        self.mask = mask

    def forward(self, x, pad):
        if self.mask:
            return self.mha(x, x, x, key_padding_mask=pad, need_weights=self.need_weights)[0]
        return self.mha(x, x, x, need_weights=self.need_weights)[0]


@probe("mha_need_weights", note="nn.MultiheadAttention, need_weights=True (default)")
def _():
    return Mha(True, False), (r(2, 5, 16), torch.zeros(2, 5, dtype=torch.bool))


@probe("mha_no_weights", note="need_weights=False: the fast path's condition")
def _():
    return Mha(False, False), (r(2, 5, 16), torch.zeros(2, 5, dtype=torch.bool))


@probe("mha_no_weights_nograd", mode="trace_nograd,script_nograd",
       note="need_weights=False traced/scripted under torch.no_grad(): the fast path may fire")
def _():
    return Mha(False, True), (r(2, 5, 16), torch.tensor([[False] * 5, [False] * 3 + [True] * 2]))


@probe("encoder_layer", note="nn.TransformerEncoderLayer, batch_first, eval")
def _():
    return nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, batch_first=True), (r(2, 5, 16),)


@probe("encoder_layer_nograd", mode="trace_nograd,script_nograd",
       note="TransformerEncoderLayer traced/scripted under torch.no_grad(): the fast path may fire")
def _():
    return nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, batch_first=True), (r(2, 5, 16),)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, batch_first=True, norm_first=False)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=True)

    def forward(self, x, pad):
        return self.enc(x, src_key_padding_mask=pad)


@probe("encoder_padmask_nograd", mode="trace_nograd,script_nograd",
       note="nn.TransformerEncoder with a padding mask under no_grad: nested-tensor fast path?")
def _():
    return Encoder(), (r(2, 5, 16), torch.tensor([[False] * 5, [False] * 3 + [True] * 2]))


@probe("gelu_tanh")
def _():
    return nn.Sequential(nn.Linear(8, 8), nn.GELU(approximate="tanh"), nn.SiLU()), (r(2, 8),)


class Interp(nn.Module):
    def forward(self, x):
        return (F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False),
                F.interpolate(x, size=(5, 7), mode="nearest-exact"),
                F.interpolate(x, size=(3, 3), mode="bicubic", antialias=True),
                F.interpolate(x, scale_factor=0.5, mode="nearest"))


@probe("interpolate")
def _():
    return Interp(), (r(1, 2, 6, 6),)


class Pads(nn.Module):
    def forward(self, x):
        return (F.pad(x, (1, 2)), F.pad(x, (1, 1, 2, 0), mode="reflect"), F.pad(x, (2, 2, 1, 0), mode="replicate"),
                F.pad(x, (1, 1, 1, 1), mode="circular"), F.pad(x, [0, 1], value=3.5))


@probe("pad")
def _():
    return Pads(), (r(1, 2, 5, 5),)


# --- a Llama-style block (RMSNorm, SDPA is_causal, GQA by repeat_interleave, RoPE, KV cache) --------------
class LlamaBlock(nn.Module):
    def __init__(self, d=32, hq=4, hk=2):
        super().__init__()
        self.hq, self.hk, self.hd = hq, hk, d // hq
        self.causal = True  # the prefill's mask; a decode step (T == 1) attends to everything
        self.n1, self.n2 = nn.RMSNorm(d, eps=1e-6), nn.RMSNorm(d, eps=1e-6)
        self.q = nn.Linear(d, d, bias=False)
        self.kv = nn.Linear(d, 2 * hk * self.hd, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.up, self.gate, self.down = nn.Linear(d, 64, bias=False), nn.Linear(d, 64, bias=False), nn.Linear(64, d, bias=False)

    def rope(self, t, cos, sin):
        t1, t2 = t.chunk(2, dim=-1)
        return t * cos + torch.cat([-t2, t1], -1) * sin

    def forward(self, x, past_k, past_v):
        B, T, D = x.shape
        h = self.n1(x)
        q = self.q(h).view(B, T, self.hq, self.hd).transpose(1, 2)
        k, v = self.kv(h).view(B, T, 2, self.hk, self.hd).permute(2, 0, 3, 1, 4).unbind(0)
        pos = torch.arange(past_k.shape[2], past_k.shape[2] + T, dtype=torch.float32)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2, dtype=torch.float32) / self.hd))
        ang = pos[:, None] * inv[None, :]
        cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)

        q, k = self.rope(q, cos, sin), self.rope(k, cos, sin)
        k = torch.cat([past_k, k], 2)
        v = torch.cat([past_v, v], 2)
        kr = k.repeat_interleave(self.hq // self.hk, dim=1)
        vr = v.repeat_interleave(self.hq // self.hk, dim=1)
        a = F.scaled_dot_product_attention(q, kr, vr, is_causal=self.causal)
        a2 = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        x = x + self.o(a.transpose(1, 2).reshape(B, T, D)) + 0.0 * a2.sum()
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h)), k, v


@probe("llama_block")
def _():
    return LlamaBlock(), (r(1, 4, 32), torch.zeros(1, 2, 0, 8), torch.zeros(1, 2, 0, 8))


# --- scripted TorchScript language features -------------------------------------------------------------
class ScriptLang(nn.Module):
    def forward(self, x):
        shape = x.shape
        dims: list[int] = [int(d) for d in shape]
        d = {"a": dims[0], "b": dims[-1]}
        acc = x.new_zeros(x.shape)
        for i in range(len(dims)):
            if dims[i] % 2 == 0:
                acc = acc + float(i)
        t = (x, dims[1:])
        s = f"{dims[0]}x{dims[1]}"
        n = x.numel() * x.element_size() + len(s)
        return acc + t[0][0] * d["a"] + float(n)


@probe("script_lang", mode="script", note="lists, dicts, loops, f-strings, shape arithmetic")
def _():
    return ScriptLang(), (r(2, 3),)


class ScriptProps(nn.Module):
    def forward(self, x):
        return x * float(x.nbytes + x.itemsize)


@probe("script_nbytes_itemsize", mode="script", note="Tensor.nbytes / Tensor.itemsize in scripted code")
def _():
    return ScriptProps(), (r(2, 3),)


# --- torchvision ops ----------------------------------------------------------------------------------
class TvOps(nn.Module):
    def forward(self, boxes, scores, feat, rois):
        import torchvision
        keep = torchvision.ops.nms(boxes, scores, 0.5)
        return keep, torchvision.ops.roi_align(feat, rois, (2, 2), 1.0, 2, True)


@probe("torchvision_ops", mode="trace")
def _():
    b = torch.tensor([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]], dtype=torch.float32)
    rois = torch.tensor([[0, 0, 0, 4, 4], [0, 1, 1, 5, 5]], dtype=torch.float32)
    return TvOps(), (b, torch.tensor([0.9, 0.8, 0.7]), r(1, 2, 8, 8), rois)


# --- driver ---------------------------------------------------------------------------------------------
def flat(o):
    if isinstance(o, torch.Tensor):
        return [o]
    if isinstance(o, (tuple, list)):
        return [t for x in o for t in flat(x)]
    return []


def nodes(block):
    for n in block.nodes():
        yield n
        for b in n.blocks():
            yield from nodes(b)


def archive_info(path):
    out = {}
    with zipfile.ZipFile(path) as z:
        for n in z.namelist():
            base = n.split("/", 1)[1] if "/" in n else n
            if base in ("version", ".data/version", "byteorder") or base.endswith("bytecode.pkl"):
                out[base] = z.read(n).decode(errors="replace").strip() if "pkl" not in base else "(present)"
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    pat = re.compile(sys.argv[2]) if len(sys.argv) > 2 else None
    os.makedirs(outdir, exist_ok=True)
    results = {"torch": torch.__version__, "models": {}}
    out_json = os.path.join(outdir, "emitted.json")
    if pat and os.path.exists(out_json):  # a partial run updates the full one
        with open(out_json) as f:
            results["models"] = json.load(f).get("models", {})
    try:
        import torchvision
        results["torchvision"] = torchvision.__version__
    except ImportError:
        pass
    for name, modes, factory, note in PROBES:
        if pat and not pat.search(name):
            continue
        for mode in modes.split(","):
            fname = f"{name}.{mode.replace('_nograd', '')}{'_nograd' if 'nograd' in mode else ''}"
            rec = {"probe": name, "mode": mode, "note": note}
            results["models"][fname] = rec
            try:
                torch.manual_seed(0)
                model, inputs = factory()
                model.eval()
                grad = torch.no_grad() if "nograd" in mode else torch.enable_grad()
                with grad:
                    if mode.startswith("trace"):
                        sm = torch.jit.trace(model, inputs, check_trace=False)
                    else:
                        sm = torch.jit.script(model)
                    ref = model(*inputs)
                path = os.path.join(outdir, fname + ".pt")
                torch.jit.save(sm, path)
                arrays = {f"in{i}": t.detach().numpy() for i, t in enumerate(inputs)}
                arrays.update({f"out{i}": t.detach().numpy() for i, t in enumerate(flat(ref))})
                np.savez(os.path.join(outdir, fname + ".npz"), **arrays)
                loaded = torch.jit.load(path)
                with open(os.path.join(outdir, fname + ".code.txt"), "w") as f:
                    f.write(loaded.code)
                    for sub_name, sub in loaded.named_modules():
                        if sub_name:
                            try:
                                f.write(f"\n# --- {sub_name} ---\n{sub.code}")
                            except Exception:
                                pass
                g = loaded.inlined_graph
                ops = {}
                for n in nodes(g):
                    k = n.kind()
                    if k.startswith(("aten::", "prim::")):
                        try:
                            s = n.schema()
                        except Exception:
                            s = "(no schema)"
                        ops.setdefault(k, set()).add(s)
                rec["ops"] = {k: sorted(v) for k, v in sorted(ops.items())}
                rec["archive"] = archive_info(path)
                with torch.no_grad():
                    got = flat(loaded(*inputs))
                rec["reload_matches"] = all(torch.allclose(a, b, atol=1e-5, equal_nan=True)
                                            for a, b in zip(got, flat(ref)) if a.dtype.is_floating_point) and len(got) == len(flat(ref))
                rec["ok"] = True
                print(f"{fname}: {len(ops)} node kinds", flush=True)
            except Exception as e:  # record and go on
                rec["ok"] = False
                rec["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
                print(f"{fname}: FAILED {rec['error']}", flush=True)
    with open(out_json, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    print(f"-> {out_json}")


if __name__ == "__main__":
    main()
