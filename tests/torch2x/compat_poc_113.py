#!/usr/bin/env python3
"""Proof of concept, under PyTorch 1.13: registering PyTorch 2.6's schemas makes the 2.6 probes load.

    /usr/bin/python3 tests/torch2x/compat_poc_113.py OUTDIR    # OUTDIR: probe_models.py's output

Registers, with the dispatcher's Python binding (a FRAGMENT library), the schemas the probes were
missing (PyTorch 2.6's exact strings where 1.13 lacks the overload; an extra overload under a fresh name where 1.13 has the
overload with an older schema: TorchScript resolves a call in the saved code by op name and
arguments, not by overload name) with reference CPU kernels, then loads each OUTDIR/*.pt, runs it
on the saved inputs and compares with PyTorch 2.6's saved outputs. It is the Python shape of the
C++ compatibility library of issue 25, not that library.
"""
import glob
import math
import os
import sys

import numpy as np
import torch

try:
    import torchvision  # noqa: F401  (torchvision::nms & co.)
except ImportError:
    pass

class Fragment:
    """torch.library.Library allows only DEF/IMPL in 1.13 (and no prim namespace); the C++ binding
    takes FRAGMENT, which adds schemas to an existing namespace as the C++ library would."""

    def __init__(self, ns):
        self.ns = ns
        self.m = torch._C._dispatch_library("FRAGMENT", ns, "", __file__, 0)

    def define(self, schema):
        return self.m.define(schema, "")

    def impl(self, name, fn, key):
        self.m.impl(name, key, fn)


aten = Fragment("aten")
prim = Fragment("prim")


def sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False):
    L, S, E = q.size(-2), k.size(-2), q.size(-1)
    s = 1.0 / math.sqrt(E) if scale is None else scale
    bias = torch.zeros(L, S, dtype=q.dtype)
    if is_causal:
        bias = bias.masked_fill(torch.ones(L, S, dtype=torch.bool).tril(0).logical_not(), float("-inf"))
    if attn_mask is not None:
        bias = (bias.masked_fill(attn_mask.logical_not(), float("-inf")) if attn_mask.dtype == torch.bool
                else bias + attn_mask)
    if enable_gqa:
        k = k.repeat_interleave(q.size(-3) // k.size(-3), -3)
        v = v.repeat_interleave(q.size(-3) // v.size(-3), -3)
    w = torch.softmax(q @ k.transpose(-2, -1) * s + bias, dim=-1)
    return w @ v  # dropout_p: inference only


def rms_norm(x, shape, weight=None, eps=None):
    e = torch.finfo(x.dtype).eps if eps is None else eps
    dims = list(range(-len(shape), 0))
    y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + e)
    return y * weight if weight is not None else y


def squeeze_dims(x, dim):
    for d in sorted((d % max(x.dim(), 1) for d in dim), reverse=True):
        x = x.squeeze(d)
    return x


def reduce_dims(fn):
    def k(x, dim=None, keepdim=False):
        if dim is None or len(dim) == 0:
            r = fn(x)
            return r.reshape([1] * x.dim()) if keepdim else r
        for d in sorted((d % x.dim() for d in dim), reverse=True):
            x = fn(x, d, keepdim)
        return x
    return k


def nonzero_static(x, *, size, fill_value=-1):
    nz = x.nonzero()[:size]
    pad = torch.full((size - nz.size(0), x.dim()), fill_value, dtype=torch.long)
    return torch.cat([nz, pad])


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, pin_memory=None):
    phys = torch.empty([size[i] for i in physical_layout], dtype=dtype)
    inv = [physical_layout.index(i) for i in range(len(physical_layout))]
    return phys.permute(inv)


def var_std(sqrt, mean=False):
    def k(x, dim=None, *, correction=None, keepdim=False):
        c = 1.0 if correction is None else float(correction)
        dims = list(range(x.dim())) if dim is None else dim
        m = x.mean(dims, keepdim=True)
        n = 1
        for d in dims:
            n *= x.size(d)
        v = ((x - m) ** 2).sum(dims, keepdim=keepdim) / max(n - c, 0)
        r = v.sqrt() if sqrt else v
        return (r, m if keepdim else m.squeeze(dims) if dims else m.reshape([])) if mean else r
    return k


def pad_sequence(seqs, batch_first=False, padding_value=0.0, padding_side="right"):
    if padding_side == "right":
        return torch.nn.utils.rnn.pad_sequence(seqs, batch_first, padding_value)
    out = torch.nn.utils.rnn.pad_sequence([s.flip(0) for s in seqs], True, padding_value).flip(1)
    return out if batch_first else out.transpose(0, 1)


REG = [
    (aten, "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
           "float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor", sdpa),
    (aten, "rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor", rms_norm),
    (aten, "squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)", squeeze_dims),
    (aten, "all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor", reduce_dims(torch.all)),
    (aten, "any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor", reduce_dims(torch.any)),
    (aten, "nonzero_static(Tensor self, *, int size, int fill_value=-1) -> Tensor", nonzero_static),
    (aten, "empty_permuted(SymInt[] size, int[] physical_layout, *, ScalarType? dtype=None, Layout? layout=None, "
           "Device? device=None, bool? pin_memory=None) -> Tensor", empty_permuted),
    # 1.13 has var.correction etc. with `int? correction`: a second overload under a new name
    (aten, "var.t2o_scalar_correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
     var_std(False)),
    (aten, "std.t2o_scalar_correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
     var_std(True)),
    (aten, "pad_sequence.t2o_padding_side(Tensor[] sequences, bool batch_first=False, float padding_value=0., "
           "str padding_side=\"right\") -> Tensor", pad_sequence),
    (prim, "nbytes(Tensor a) -> int", lambda a: a.numel() * a.element_size()),
    (prim, "itemsize(Tensor a) -> int", lambda a: a.element_size()),
]


def flat(o):
    if isinstance(o, torch.Tensor):
        return [o]
    if isinstance(o, (tuple, list)):
        return [t for x in o for t in flat(x)]
    return []


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for lib, schema, fn in REG:
        try:
            lib.define(schema)
            name = schema.split("(", 1)[0]
            # ops without a tensor argument dispatch on no key: CompositeExplicitAutograd would need
            # a backend; CPU is enough for tensor-taking ops, empty_permuted needs a fallback key
            key = "BackendSelect" if name == "empty_permuted" else "CPU"
            lib.impl(name, fn, key)
            print(f"registered {lib.ns}::{schema.split('(', 1)[0]}")
        except Exception as e:
            print(f"COULD NOT REGISTER {lib.ns}::{schema.split('(', 1)[0]}: {type(e).__name__}: {str(e).splitlines()[0]}")
    ok = bad = 0
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.pt"))):
        name = os.path.basename(path)[:-3]
        try:
            m = torch.jit.load(path)
        except Exception as e:
            print(f"{name}: LOAD FAILED {str(e).strip().splitlines()[0]}")
            bad += 1
            continue
        data = np.load(os.path.join(sys.argv[1], name + ".npz"))
        ins = [torch.from_numpy(data[k]) for k in sorted((k for k in data if k.startswith("in")), key=lambda k: int(k[2:]))]
        outs = [data[k] for k in sorted((k for k in data if k.startswith("out")), key=lambda k: int(k[3:]))]
        try:
            with torch.no_grad():
                got = flat(m(*ins))
            good = len(got) == len(outs) and all(
                g.shape == tuple(o.shape) and np.allclose(g.numpy(), o, atol=1e-4, rtol=1e-4, equal_nan=True)
                for g, o in zip(got, outs))
            print(f"{name}: loads; run {'match' if good else 'MISMATCH'}")
            ok += good
            bad += not good
        except Exception as e:
            print(f"{name}: loads; run ERROR {type(e).__name__}: {str(e).strip().splitlines()[0]}")
            bad += 1
    print(f"{ok} passed, {bad} failed")


if __name__ == "__main__":
    main()
