#!/usr/bin/python3
"""Fixtures of the torch.onnx.ops tests (run with Debian's /usr/bin/python3, which has torch 1.13).

    /usr/bin/python3 tests/onnx_ops/make_onnx_ops_fixtures.py OUT_DIR

The op library is libtorch2onnx_ops.so ($TORCH2ONNX_OPS_LIBRARY); the module is the source tree's
python/torch2onnx_ops. Writes, each with model.pt, input_K.bin, expected_K.bin and meta.json (the
format tests/ort/compare.js reads; expected outputs come from the saved TorchScript model run with
the library's kernels):
  kernels/CASE/  one RotaryEmbedding or Attention call per attribute combination; meta.json's "node"
                 describes the single ONNX node (op_type, attributes, inputs, outputs) the test builds
                 to run ONNX Runtime's kernel on the same inputs, "opsets" where the export is tested
  seeds/custom_op, seeds/multi_out, seeds/rotary  the torch.onnx.ops documentation's examples
  llama/model.pt + llama/runs/K/   a Llama-style decoder, one directory per (batch, seq, past) run
OUT_DIR/cases.json lists the kernel cases and llama runs. Regenerated when this file changes.
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))

ALL_OPSETS = [9, 10, 11, 13, 17, 18, 22]  # auxiliary forms change at 10 (Slice), 11 (Range), 13; up to 22
SHORT_OPSETS = [9, 17]


def attr(name, value):
    if isinstance(value, bool):
        return {"name": name, "type": "int", "value": int(value)}
    if isinstance(value, int):
        return {"name": name, "type": "int", "value": value}
    return {"name": name, "type": "float", "value": float(value)}


def rope_cases(torch):
    g = torch.Generator().manual_seed(1)

    def r(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g).to(dtype)

    def caches(rows, half, dtype=torch.float32):
        theta = torch.arange(rows).float().unsqueeze(1) * (0.5 ** torch.arange(half).float()).unsqueeze(0)
        return theta.cos().to(dtype), theta.sin().to(dtype)

    def pos(b, s, rows):
        return torch.randint(0, rows, (b, s), generator=g)

    cases = []

    def add(name, x, cos, sin, p, opsets=SHORT_OPSETS, rtol=1e-4, **kw):
        inputs = [x, cos, sin] + ([p] if p is not None else [])
        names = ["X", "cos_cache", "sin_cache"] + (["position_ids"] if p is not None else [])
        attrs = [attr(k, v) for k, v in kw.items() if v]
        cases.append(dict(name=name, op="RotaryEmbedding", inputs=inputs, input_names=names, kwargs=kw,
                          attrs=attrs, num_outputs=1, opsets=opsets, rtol=rtol))

    c, s = caches(16, 4)
    add("rope_4d_pos", r(2, 3, 5, 8), c, s, pos(2, 5, 16), opsets=ALL_OPSETS)
    add("rope_4d_pos_interleaved", r(2, 3, 5, 8), c, s, pos(2, 5, 16), opsets=ALL_OPSETS, interleaved=True)
    add("rope_3d_pos", r(2, 5, 24), c, s, pos(2, 5, 16), num_heads=3)
    add("rope_3d_pos_interleaved", r(2, 5, 24), c, s, pos(2, 5, 16), interleaved=True, num_heads=3)
    c2, s2 = caches(16, 2)
    add("rope_4d_partial", r(2, 3, 5, 8), c2, s2, pos(2, 5, 16), rotary_embedding_dim=4)
    add("rope_3d_partial_interleaved", r(2, 5, 24), c2, s2, pos(2, 5, 16), interleaved=True, num_heads=3,
        rotary_embedding_dim=4)
    c3, s3 = r(2, 5, 4), r(2, 5, 4)
    add("rope_4d_cache3d", r(2, 3, 5, 8), c3, s3, None)
    add("rope_3d_cache3d_interleaved", r(2, 5, 24), c3, s3, None, interleaved=True, num_heads=3)
    ch, sh = caches(16, 4, torch.float16)
    add("rope_4d_fp16", r(2, 3, 5, 8, dtype=torch.float16), ch, sh, pos(2, 5, 16), rtol=2e-3)
    return cases


def attention_cases(torch):
    g = torch.Generator().manual_seed(2)

    def r(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g).to(dtype)

    def bool_mask(*shape):
        m = torch.rand(*shape, generator=g) > 0.4
        m[..., 0] = True  # no fully masked row
        return m

    cases = []

    def add(name, q, k, v, mask=None, past=None, opsets=SHORT_OPSETS, rtol=1e-4, **kw):
        inputs = [q, k, v]
        names = ["Q", "K", "V"]
        present = {"attn_mask": mask}
        if past is not None:
            present["past_key"], present["past_value"] = past
        for key in ("attn_mask", "past_key", "past_value"):
            t = present.get(key)
            names.append(key if t is not None else "")
            if t is not None:
                inputs.append(t)
        while names and names[-1] == "":
            names.pop()
        attrs = [attr(k2, v2) for k2, v2 in kw.items() if v2 is not None and v2 is not False and
                 not (k2 in ("softcap", "qk_matmul_output_mode", "kv_num_heads", "q_num_heads") and v2 == 0)]
        cases.append(dict(name=name, op="Attention", inputs=inputs, input_names=names, kwargs=kw, attrs=attrs,
                          num_outputs=4, opsets=opsets, rtol=rtol))

    q4, k4, v4 = r(2, 4, 5, 8), r(2, 4, 6, 8), r(2, 4, 6, 8)
    add("attn_mha", q4, k4, v4)
    add("attn_gqa", r(2, 4, 5, 8), r(2, 2, 6, 8), r(2, 2, 6, 8), opsets=ALL_OPSETS)
    add("attn_mqa_v_head", r(2, 4, 5, 8), r(2, 1, 6, 8), r(2, 1, 6, 16))
    add("attn_bool_mask_4d", q4, k4, v4, mask=bool_mask(2, 1, 5, 6))
    add("attn_bool_mask_2d", q4, k4, v4, mask=bool_mask(5, 6))
    add("attn_float_mask", q4, k4, v4, mask=r(5, 6))
    add("attn_float_mask_3d_heads", q4, k4, v4, mask=r(4, 5, 6))
    add("attn_causal", r(2, 4, 5, 8), r(2, 2, 5, 8), r(2, 2, 5, 8), opsets=ALL_OPSETS, is_causal=True)
    add("attn_causal_cross", r(2, 4, 3, 8), r(2, 2, 5, 8), r(2, 2, 5, 8), is_causal=True)
    add("attn_past", r(2, 4, 4, 8), r(2, 2, 4, 8), r(2, 2, 4, 8), past=(r(2, 2, 3, 8), r(2, 2, 3, 8)))
    add("attn_causal_past", r(2, 4, 4, 8), r(2, 2, 4, 8), r(2, 2, 4, 8), past=(r(2, 2, 3, 8), r(2, 2, 3, 8)),
        opsets=ALL_OPSETS, is_causal=True)
    add("attn_causal_decode", r(2, 4, 1, 8), r(2, 2, 1, 8), r(2, 2, 1, 8), past=(r(2, 2, 5, 8), r(2, 2, 5, 8)),
        is_causal=True)
    add("attn_causal_one_query_two_keys", r(2, 4, 1, 8), r(2, 2, 2, 8), r(2, 2, 2, 8),
        past=(r(2, 2, 3, 8), r(2, 2, 3, 8)), is_causal=True)
    add("attn_past_bool_mask", r(2, 4, 2, 8), r(2, 2, 2, 8), r(2, 2, 2, 8), mask=bool_mask(2, 4, 2, 5),
        past=(r(2, 2, 3, 8), r(2, 2, 3, 8)))
    add("attn_causal_and_mask", r(2, 4, 5, 8), r(2, 2, 5, 8), r(2, 2, 5, 8), mask=bool_mask(2, 1, 5, 5),
        is_causal=True)
    add("attn_scale", q4, k4, v4, scale=0.25)
    add("attn_softcap_float_mask", q4, k4, v4, mask=r(5, 6) * 4, softcap=2.0)
    add("attn_softcap_causal", r(2, 4, 5, 8) * 3, r(2, 2, 5, 8), r(2, 2, 5, 8), is_causal=True, softcap=1.5)
    for mode in range(4):
        add(f"attn_qk_mode{mode}", q4 * 2, k4, v4, mask=r(5, 6), softcap=3.0, qk_matmul_output_mode=mode)
    add("attn_qk_mode2_causal", q4, r(2, 4, 5, 8), r(2, 4, 5, 8), is_causal=True, qk_matmul_output_mode=2)
    add("attn_softmax_precision", q4, k4, v4, softmax_precision=1)
    add("attn_3d", r(2, 5, 32), r(2, 6, 16), r(2, 6, 16), opsets=ALL_OPSETS, q_num_heads=4, kv_num_heads=2)
    add("attn_3d_causal_past", r(2, 3, 32), r(2, 3, 16), r(2, 3, 16), past=(r(2, 2, 4, 8), r(2, 2, 4, 8)),
        is_causal=True, q_num_heads=4, kv_num_heads=2)
    add("attn_fp16", r(2, 4, 5, 8, dtype=torch.float16), r(2, 2, 6, 8, dtype=torch.float16),
        r(2, 2, 6, 8, dtype=torch.float16), mask=bool_mask(5, 6), rtol=2e-3)
    return cases


def make_call_module(torch, ops, case):
    kw = dict(case["kwargs"])
    names = [n for n in case["input_names"] if n]

    if case["op"] == "RotaryEmbedding":
        class Rope(torch.nn.Module):
            def forward(self, *xs):
                args = dict(zip(names, xs))
                return ops.rotary_embedding(args["X"], args["cos_cache"], args["sin_cache"],
                                            args.get("position_ids"), **kw)
        return Rope()

    class Attn(torch.nn.Module):
        def forward(self, *xs):
            args = dict(zip(names, xs))
            return ops.attention(args["Q"], args["K"], args["V"], args.get("attn_mask"), args.get("past_key"),
                                 args.get("past_value"), **kw)
    return Attn()


def write_fixture(mf, torch, d, module, inputs, rtol, extra, method="trace"):
    os.makedirs(d, exist_ok=True)
    with torch.no_grad():
        if method == "script":
            saved = torch.jit.script(module.eval())
        else:
            saved = torch.jit.trace(module.eval(), tuple(inputs), check_trace=False)
    pt = os.path.join(d, "model.pt")
    saved.save(pt)
    meta = mf.outputs_meta(pt, inputs, rtol, d, method)
    meta.update(extra)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


# --- the documentation's examples (torch.onnx.ops seeds), with this project's names ---

def seed_modules(torch, ops):
    class CustomOp(torch.nn.Module):
        def forward(self, x):
            x = x + 1
            val = ops.symbolic("custom_domain::CustomOp", (x,), dict(attr_key="attr_value"), dtype=x.dtype,
                               shape=x.shape, version=1, metadata_props={"origin": "torch2onnx_ops"})
            return torch.nn.functional.relu(val)

    class CustomOpMultiOut(torch.nn.Module):
        def forward(self, x):
            x = x + 1
            (out1, out2) = ops.symbolic_multi_out(
                "custom_domain::CustomOp", (x,), dict(attr_key="attr_value", ints=[1, 2], floats=[0.5, 1],
                                                      flag=True, names=["a", "b"], gain=2.5),
                dtypes=(x.dtype, torch.int64), shapes=(x.shape, [1, 2, 3]), version=1)
            return torch.nn.functional.relu(out1) + out2.sum()

    class Rotary(torch.nn.Module):
        def forward(self, input_data, cos_cache_data, sin_cache_data, position_ids_data):
            return ops.rotary_embedding(input_data, cos_cache_data, sin_cache_data, position_ids_data)

    return CustomOp(), CustomOpMultiOut(), Rotary()


def scripted_module(torch, ops):
    """rotary_embedding + grouped-query attention with a past, through torch.jit.script."""
    class ScriptedBlock(torch.nn.Module):
        def forward(self, q, k, v, cos, sin, pos, past_key, past_value):
            q = ops.rotary_embedding(q, cos, sin, pos, interleaved=True)
            k = ops.rotary_embedding(k, cos, sin, pos, interleaved=True)
            out, present_key, present_value, _ = ops.attention(q, k, v, None, past_key, past_value, is_causal=True,
                                                               scale=0.3)
            return out, present_key, present_value

    return ScriptedBlock()


# --- a Llama-style decoder: RMSNorm, rotary_embedding, grouped-query attention with a KV cache, SwiGLU ---

def llama(torch, ops):
    nn = torch.nn

    class RMSNorm(nn.Module):
        def __init__(self, dim, eps=1e-6):
            super().__init__()
            self.weight = nn.Parameter(1 + 0.1 * torch.randn(dim))
            self.eps = eps

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight

    class Layer(nn.Module):
        def __init__(self, hidden, heads, kv_heads, head_dim, ffn):
            super().__init__()
            self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
            self.q_proj = nn.Linear(hidden, heads * head_dim, bias=False)
            self.k_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
            self.v_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
            self.o_proj = nn.Linear(heads * head_dim, hidden, bias=False)
            self.gate = nn.Linear(hidden, ffn, bias=False)
            self.up = nn.Linear(hidden, ffn, bias=False)
            self.down = nn.Linear(ffn, hidden, bias=False)
            self.norm1, self.norm2 = RMSNorm(hidden), RMSNorm(hidden)

        def forward(self, x, cos, sin, position_ids, past_key, past_value):
            b, s = x.shape[0], x.shape[1]
            h = self.norm1(x)
            q = self.q_proj(h).view(b, s, self.heads, self.head_dim).transpose(1, 2)
            k = self.k_proj(h).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
            v = self.v_proj(h).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
            q = ops.rotary_embedding(q, cos, sin, position_ids)
            k = ops.rotary_embedding(k, cos, sin, position_ids)
            out, present_key, present_value, _ = ops.attention(q, k, v, past_key=past_key, past_value=past_value,
                                                               is_causal=True)
            x = x + self.o_proj(out.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))
            h = self.norm2(x)
            x = x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))
            return x, present_key, present_value

    class Decoder(nn.Module):
        def __init__(self, vocab=50, hidden=48, heads=4, kv_heads=2, layers=2, ffn=96, max_pos=64):
            super().__init__()
            head_dim = hidden // heads
            self.embed = nn.Embedding(vocab, hidden)
            self.layers = nn.ModuleList([Layer(hidden, heads, kv_heads, head_dim, ffn) for _ in range(layers)])
            self.norm = RMSNorm(hidden)
            self.lm_head = nn.Linear(hidden, vocab, bias=False)
            inv = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
            freqs = torch.arange(max_pos).float().unsqueeze(1) * inv.unsqueeze(0)
            self.register_buffer("cos_cache", freqs.cos())
            self.register_buffer("sin_cache", freqs.sin())

        def forward(self, input_ids, position_ids, past_key_0, past_value_0, past_key_1, past_value_1):
            x = self.embed(input_ids)
            x, pk0, pv0 = self.layers[0](x, self.cos_cache, self.sin_cache, position_ids, past_key_0, past_value_0)
            x, pk1, pv1 = self.layers[1](x, self.cos_cache, self.sin_cache, position_ids, past_key_1, past_value_1)
            return self.lm_head(self.norm(x)), pk0, pv0, pk1, pv1

    return Decoder()


def llama_inputs(torch, g, batch, seq, past, kv_heads=2, head_dim=12, vocab=50):
    ids = torch.randint(0, vocab, (batch, seq), generator=g)
    pos = (torch.arange(seq) + past).unsqueeze(0).expand(batch, seq).contiguous()
    caches = [torch.randn(batch, kv_heads, past, head_dim, generator=g) for _ in range(4)]
    return [ids, pos] + caches


LLAMA_RUNS = [  # (batch, seq, past): the export's example first, then other sizes
    (2, 4, 3), (1, 1, 5), (3, 6, 0), (2, 1, 0), (1, 3, 7),
]


# What PyTorch >= 2.8 refuses itself: it registers torch.ops.onnx.* (this library then registers
# nothing), its attention kernel refuses an attn_mask beside is_causal=True (which ONNX's Attention-23
# and this library's kernel combine), and its tracer cannot record an op taking a Tensor?[] (the
# symbolic ops' inputs). Message fragment -> why.
TORCH_REFUSES = {
    "should not be set when is_causal": "its own torch.onnx.ops.attention refuses an attn_mask beside is_causal=True",
    "unsupported input list type: Tensor?": "its tracer cannot record torch.onnx.ops.symbolic (an op taking a Tensor?[])",
}


def pytorch_departs(ops, kwargs, mask, past):
    """Why PyTorch's own torch.onnx.ops.attention (PyTorch >= 2.8, whose reference kernel then gives the
    fixtures' expected values) computes something else than Attention-23 as ONNX Runtime 1.30 (and this
    project's kernels, decompositions and native nodes) do for these arguments, or None: the differences
    docs/guide/torch_onnx_ops.md lists."""
    if ops.library_path is not None or not ops._has_onnx_ops():
        return None  # this project's kernels (the C++ library, or their Python form)
    masked = mask is not None or kwargs.get("is_causal")
    if kwargs.get("is_causal") and past is not None:
        return "its reference aligns is_causal to the top left with a past (ONNX Runtime: past + i keys for query i)"
    if kwargs.get("softcap") and masked:
        return "its reference applies softcap after the mask (ONNX Runtime before it: a masked score stays masked)"
    if kwargs.get("qk_matmul_output_mode") in (1, 2) and (masked or kwargs.get("softcap")):
        return ("its reference's qk_matmul_output modes 1 and 2 are ONNX Runtime's 2 and 1, with -inf at masked "
                "scores (ONNX Runtime: the lowest float)")
    return None


def refused_by_torch(torch, index, name, d, make):
    """Runs make(); when this PyTorch refuses it (TORCH_REFUSES), records why in index["skipped"][name]
    (the test skips it, naming both) and returns True."""
    try:
        make()
        return False
    except RuntimeError as e:
        message = str(e)
        why = next((w for fragment, w in TORCH_REFUSES.items() if fragment in message), None)
        if why is None or int(torch.__version__.split(".")[0]) < 2:
            raise
        last = [line for line in message.splitlines() if line.strip()][-1].strip()
        index["skipped"][name] = "PyTorch %s: %s (%s)" % (torch.__version__, why, last)
        shutil.rmtree(d, ignore_errors=True)
        return True


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    import make_fixtures as mf

    # Generated once per machine and version of these sources (make_fixtures.generate_once: one
    # process generates, the other test processes wait, the directory is renamed into place whole).
    extra = tuple(os.path.join(ROOT, "python", "torch2onnx_ops", f) for f in ("_aten_decompositions.py", "__init__.py"))
    mf.generate_once(sys.argv[1], os.path.abspath(__file__), lambda digest: generate(sys.argv[1], digest),
                     extra_sources=extra)


def generate(tmp, digest):
    import torch
    import make_fixtures as mf
    import torch2onnx_ops as ops

    torch.set_num_threads(1)
    torch.manual_seed(0)
    index = {"source_hash": digest, "kernels": [], "llama_runs": [], "skipped": {}}
    for case in rope_cases(torch) + attention_cases(torch):
        d = os.path.join(tmp, "kernels", case["name"])
        node = {"op_type": case["op"], "attrs": case["attrs"], "inputs": case["input_names"],
                "num_outputs": case["num_outputs"]}
        if case["op"] == "Attention":
            names = dict(zip([n for n in case["input_names"] if n], case["inputs"]))
            why = pytorch_departs(ops, case["kwargs"], names.get("attn_mask"), names.get("past_key"))
            if why:
                index["skipped"][case["name"]] = "PyTorch %s: %s" % (torch.__version__, why)
                continue
        if refused_by_torch(torch, index, case["name"], d, lambda: write_fixture(
                mf, torch, d, make_call_module(torch, ops, case), case["inputs"], case["rtol"],
                {"node": node, "opsets": case["opsets"]})):
            continue
        index["kernels"].append(case["name"])

    custom, multi, rotary = seed_modules(torch, ops)
    for name, module in (("custom_op", custom), ("multi_out", multi)):
        d = os.path.join(tmp, "seeds", name)
        refused_by_torch(torch, index, "seeds/" + name, d,
                         lambda: write_fixture(mf, torch, d, module, [torch.rand(2, 3)], 1e-4, {}))
    rope_inputs = [torch.rand(2, 3, 4, 8), torch.rand(50, 4), torch.rand(50, 4), torch.randint(0, 50, (2, 4))]
    write_fixture(mf, torch, os.path.join(tmp, "seeds", "rotary"), rotary, rope_inputs, 1e-4, {})
    # The same model at another batch size, for the dynamic batch.
    other = [torch.rand(5, 3, 4, 8), rope_inputs[1], rope_inputs[2], torch.randint(0, 50, (5, 4))]
    d = os.path.join(tmp, "seeds", "rotary", "batch5")
    os.makedirs(d)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(mf.outputs_meta(os.path.join(tmp, "seeds", "rotary", "model.pt"), other, 1e-4, d, "trace"), f)

    pos = torch.tensor([[3, 4, 5], [3, 4, 5]])
    scripted_inputs = [torch.randn(2, 4, 3, 8), torch.randn(2, 2, 3, 8), torch.randn(2, 2, 3, 8), torch.rand(16, 4),
                       torch.rand(16, 4), pos, torch.randn(2, 2, 3, 8), torch.randn(2, 2, 3, 8)]
    why = pytorch_departs(ops, {"is_causal": True}, None, scripted_inputs[-2])
    if why:
        index["skipped"]["seeds/scripted"] = "PyTorch %s: %s" % (torch.__version__, why)
    else:
        write_fixture(mf, torch, os.path.join(tmp, "seeds", "scripted"), scripted_module(torch, ops), scripted_inputs,
                      1e-4, {}, method="script")

    g = torch.Generator().manual_seed(3)
    model = llama(torch, ops).eval()
    runs = [llama_inputs(torch, g, *r) for r in LLAMA_RUNS]
    llama_dir = os.path.join(tmp, "llama")
    write_fixture(mf, torch, llama_dir, model, runs[0], 1e-4, {})
    for k, (inputs, shape) in enumerate(zip(runs, LLAMA_RUNS)):
        why = pytorch_departs(ops, {"is_causal": True}, None, inputs[2] if shape[2] > 0 else None)
        if why:  # the decoder's attention is causal: with a past, PyTorch's reference departs
            index["skipped"]["llama/runs/%d" % k] = "PyTorch %s: %s (batch, seq, past = %s)" % (
                torch.__version__, why, shape)
            continue
        d = os.path.join(llama_dir, "runs", str(k))
        os.makedirs(d)
        meta = mf.outputs_meta(os.path.join(llama_dir, "model.pt"), inputs, 1e-4, d, "trace")
        # The eager model too: the saved TorchScript must match it.
        with torch.no_grad():
            eager = model(*inputs)
            traced = torch.jit.load(os.path.join(llama_dir, "model.pt"))(*inputs)
        meta["eager_max_abs_diff"] = max(float((a - b).abs().max()) if a.numel() else 0.0
                                         for a, b in zip(eager, traced))
        meta["batch_seq_past"] = list(shape)
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        index["llama_runs"].append(str(k))
    with open(os.path.join(tmp, "cases.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
