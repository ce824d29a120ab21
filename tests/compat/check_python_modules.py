#!/usr/bin/env python3
"""torch2onnx's Python modules under PyTorch 2.x (ctest torch2x.python_modules, in the PyTorch 2.6 root).

    bash scripts/torch2x_env.sh run tests/compat/check_python_modules.py PYTHON_DIR OUT.pt

PYTHON_DIR holds torch2onnx/ and torch2onnx_ops/ (the build tree's lib/python). Imports both, runs
torch2onnx_ops' ops (registered from Python there: the C++ library is built for libtorch 1.13) and
compares them with their ATen decompositions, then saves a small model using
scaled_dot_product_attention and RMSNorm with torch2onnx.save to OUT.pt, whose signature record is
checked here; the caller then loads OUT.pt with torch2onnx (libtorch 1.13 + the compatibility library).
"""
import json
import sys
import zipfile

sys.path.insert(0, sys.argv[1])
import torch  # noqa: E402

import torch2onnx  # noqa: E402
import torch2onnx_ops  # noqa: E402

failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


expect(int(torch.__version__.split(".")[0]) >= 2, f"running under PyTorch {torch.__version__}")
g = torch.Generator().manual_seed(0)
x = torch.randn(2, 3, 4, 8, generator=g)
z = torch2onnx_ops.symbolic("custom::Op", [x], {"alpha": 0.5, "k": [1, 2]}, dtype=torch.float16, shape=[2, 5])
expect(z.dtype == torch.float16 and list(z.shape) == [2, 5] and not z.any(), "symbolic: zeros of the declared type")
outs = torch2onnx_ops.symbolic_multi_out("custom::Two", [x], dtypes=[torch.int64, 1], shapes=[[3], [1, 2]])
expect([o.dtype for o in outs] == [torch.int64, torch.float32], "symbolic_multi_out: declared types")
cos, sin = torch.randn(16, 4, generator=g), torch.randn(16, 4, generator=g)
pos = torch.arange(4).expand(2, 4)
rot = torch2onnx_ops.rotary_embedding(x, cos, sin, pos)
expect(torch.equal(rot, torch2onnx_ops.aten_decompositions()[torch.ops.onnx.RotaryEmbedding.opset23](x, cos, sin, pos)),
       "rotary_embedding equals its decomposition")
k, v = torch.randn(2, 3, 6, 8, generator=g), torch.randn(2, 3, 6, 8, generator=g)
att = torch2onnx_ops.attention(x, k, v, is_causal=True)
expect(len(att) == 4 and list(att[0].shape) == [2, 3, 4, 8], "attention: four outputs, (batch, heads, seq, size)")


def first_output(q: torch.Tensor, kk: torch.Tensor, vv: torch.Tensor) -> torch.Tensor:
    return torch.ops.onnx.Attention(q, kk, vv)[0]


expect(torch.equal(torch.jit.script(first_output)(x, k, v), torch2onnx_ops.attention(x, k, v)[0]), "attention scripted")


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.RMSNorm(8)
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x, mask):
        h = self.norm(x)
        return self.proj(torch.nn.functional.scaled_dot_product_attention(h, h, h, attn_mask=mask))


model = Block()
mask = torch.ones(4, 4, dtype=torch.bool).tril()
torch2onnx.save(model, (x, mask), sys.argv[2], dynamic_axes={"x": {0: "batch"}})
with zipfile.ZipFile(sys.argv[2]) as zf:
    sig = json.loads(zf.read(next(n for n in zf.namelist() if n.endswith("extra/torch2onnx_signature.json"))))
    code = "".join(zf.read(n).decode() for n in zf.namelist() if n.endswith(".py"))
expect(sig["inputs"] == ["float32[2,3,4,8]", "bool[4,4]"] and sig["dynamic_axes"] == ["x=0:batch"],
       "torch2onnx.save: signature " + json.dumps(sig["inputs"]))
expect("scaled_dot_product_attention" in code and "rms_norm" in code, "the saved code calls SDPA and rms_norm")
sys.exit(1 if failures else 0)
