#!/usr/bin/python3
"""Fixtures for the vendor-pack tests: TorchScript models calling custom ops of "myvendor".

    /usr/bin/python3 tests/vendor/make_vendor_fixtures.py OUT_DIR NAME...

The custom ops are defined here with torch.library (schemas identical to those the example packs
declare, kernels in Python) only to script the models and compute the expected outputs; torch2onnx
loads the saved models WITHOUT them. For each NAME, OUT_DIR/NAME/ gets model.pt, input_K.bin,
expected_K.bin and meta.json in the format of tests/ort/compare.js (see tests/fixtures/make_fixtures.py).
"""
import fcntl
import json
import os
import shutil
import sys
import tempfile

import torch
import torch.nn.functional as F

torch.set_num_threads(1)

LIB = torch.library.Library("myvendor", "DEF")
SCHEMAS = {
    # examples/vendor_plugin
    "fused_gelu": ("fused_gelu(Tensor x, float alpha=1.0) -> Tensor", lambda x, alpha: F.gelu(x) * alpha),
    "scaled_add": ("scaled_add(Tensor a, Tensor b, float alpha) -> Tensor", lambda a, b, alpha: a + alpha * b),
    # examples/json_pack
    "leaky": ("leaky(Tensor x, float slope=0.01) -> Tensor", lambda x, slope: F.leaky_relu(x, slope)),
    "gelu_bias": ("gelu_bias(Tensor x, Tensor bias) -> Tensor", lambda x, b: F.gelu(x + b, approximate="tanh")),
    "clip_norm": ("clip_norm(Tensor x, int[] dims, float eps=1e-6) -> Tensor",
                  lambda x, dims, eps: x * 1.0),  # structure only: never run in ONNX Runtime
}
for name, (schema, fn) in SCHEMAS.items():
    LIB.define(schema)
    LIB.impl(name, fn, "CPU")


class CustomOps(torch.nn.Module):  # vendor pack: fused_gelu (com.myvendor) + scaled_add (standard)
    def forward(self, x):
        y = torch.ops.myvendor.fused_gelu(x, 0.5)
        return torch.ops.myvendor.scaled_add(y, x, 2.0)


class ScaledAdd(torch.nn.Module):  # vendor pack, standard ONNX only: runs in ONNX Runtime
    def forward(self, x):
        return torch.ops.myvendor.scaled_add(torch.relu(x), x, 0.5)


class Gelu(torch.nn.Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.act = torch.nn.GELU(approximate=approximate)

    def forward(self, x):
        return self.act(x * 2.0)


class JsonOps(torch.nn.Module):  # JSON pack: LeakyRelu (standard) + FastGelu (com.microsoft)
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.linspace(-1.0, 1.0, 8))

    def forward(self, x):
        return torch.ops.myvendor.gelu_bias(torch.ops.myvendor.leaky(x, 0.2), self.bias)


class JsonConst(torch.nn.Module):  # JSON pack: a custom op on a weight only (never constant-folded)
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.linspace(-2.0, 2.0, 8))

    def forward(self, x):
        return x + torch.ops.myvendor.leaky(self.w, 0.2)


class JsonClipNorm(torch.nn.Module):  # JSON pack: a node of com.myvendor
    def forward(self, x):
        return torch.ops.myvendor.clip_norm(x, [1], 1e-5)


class Relu(torch.nn.Module):  # for the deliberately broken packs (they override aten::relu)
    def forward(self, x):
        return torch.relu(x) + 1.0


MODELS = {
    "custom_ops": (CustomOps, (2, 8)),
    "scaled_add": (ScaledAdd, (2, 8)),
    "gelu": (lambda: Gelu("none"), (2, 8)),
    "gelu_tanh": (lambda: Gelu("tanh"), (2, 8)),
    "json_ops": (JsonOps, (2, 8)),
    "json_const": (JsonConst, (2, 8)),
    "json_clip_norm": (JsonClipNorm, (2, 8)),
    "relu": (Relu, (2, 8)),
}


def make(out_dir, name):
    ctor, shape = MODELS[name]
    final = os.path.join(out_dir, name)
    if os.path.exists(os.path.join(final, "meta.json")):
        return
    torch.manual_seed(len(name))
    model = torch.jit.script(ctor().eval())
    tmp = tempfile.mkdtemp(prefix=name + ".", dir=out_dir)
    model.save(os.path.join(tmp, "model.pt"))
    x = torch.randn(*shape)
    with torch.no_grad():
        y = torch.jit.load(os.path.join(tmp, "model.pt"))(x)
    x.numpy().astype("<f4").tofile(os.path.join(tmp, "input_0.bin"))
    y.numpy().astype("<f4").tofile(os.path.join(tmp, "expected_0.bin"))
    meta = {"kind": "model",
            "inputs": [{"file": "input_0.bin", "dtype": "float32", "shape": list(shape)}],
            "outputs": [{"file": "expected_0.bin", "dtype": "float32", "shape": list(y.shape)}],
            "rtol": 1e-3,
            "cli_inputs": ["float32[%s]" % ",".join(str(d) for d in shape)]}
    with open(os.path.join(tmp, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    if os.path.exists(final):
        shutil.rmtree(final)
    os.rename(tmp, final)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for name in sys.argv[2:]:
            if name not in MODELS:
                raise SystemExit("unknown fixture " + name + " (known: " + ", ".join(MODELS) + ")")
            make(out_dir, name)


if __name__ == "__main__":
    main()
