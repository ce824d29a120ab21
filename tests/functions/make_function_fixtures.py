#!/usr/bin/python3
"""Fixtures for --export-modules-as-functions (run with Debian's /usr/bin/python3, which has torch).

    /usr/bin/python3 tests/functions/make_function_fixtures.py OUT_DIR [--list]

Models with repeated blocks, per case OUT_DIR/CASE/:
  model.pt     TorchScript (traced or scripted, eval mode, fixed-seed weights)
  size_0/      input_0.bin, PyTorch's expected_K.bin and meta.json as tests/ort/compare.js reads them,
               and input_0.pb (the same input as an ONNX TensorProto, for core's ort_runner.js)
  export.json  {"cli_args": [...]}
Cases: blocks_trace / blocks_script (two calls of a custom Block: Linear, LeakyReLU with a different
slope per call, relu), variants_trace (Block with CELU(1.0) and CELU(2.0): two bodies), transformer_trace (nn.TransformerEncoderLayer x2), blocks_saved (the blocks
saved by torch2onnx.save(..., export_modules_as_functions={Block}): export needs no option). All cases in one process,
under a lock, only when this file changed. --list prints the case names.
"""
import json
import os
import shutil
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fixtures"))

CASES = ["blocks_trace", "blocks_script", "variants_trace", "transformer_trace", "blocks_saved"]
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))


def models():
    import torch
    import torch.nn as nn

    class Block(nn.Module):
        def __init__(self, n, act):
            super().__init__()
            self.lin = nn.Linear(n, n)
            self.act = act

        def forward(self, x):
            return torch.relu(self.act(self.lin(x)))

    class Blocks(nn.Module):
        def __init__(self):
            super().__init__()
            # LeakyRelu's alpha attribute differs between the two calls: a function attribute.
            self.b0 = Block(4, nn.LeakyReLU(0.1))
            self.b1 = Block(4, nn.LeakyReLU(0.2))

        def forward(self, x):
            return self.b1(self.b0(x)) + 1.0

    class Variants(nn.Module):
        def __init__(self):
            super().__init__()
            # CELU(1.0) converts to Elu alone, CELU(2.0) to Elu between two Muls: two bodies of Block.
            self.b0 = Block(4, nn.CELU(1.0))
            self.b1 = Block(4, nn.CELU(2.0))

        def forward(self, x):
            return self.b1(self.b0(x)) + 1.0

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([
                nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
                for _ in range(2)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    return {"blocks": (Blocks, (2, 4)), "variants": (Variants, (2, 4)), "transformer": (Encoder, (2, 5, 8))}


def tensor_proto(t) -> bytes:
    """An ONNX TensorProto (dims, data_type, raw_data) of a float32 tensor, encoded by hand (no onnx
    package for Debian's Python)."""
    def varint(v):
        out = b""
        while True:
            b = v & 0x7F
            v >>= 7
            if v:
                out += bytes([b | 0x80])
            else:
                return out + bytes([b])

    raw = t.detach().contiguous().numpy().astype("<f4").tobytes()
    msg = b"".join(b"\x08" + varint(d) for d in t.shape)  # field 1: dims
    msg += b"\x10" + varint(1)  # field 2: data_type FLOAT
    msg += b"\x4a" + varint(len(raw)) + raw  # field 9: raw_data
    return msg


def write_case(out_dir, name, classes):
    import torch
    import make_fixtures as mf
    base, method = name.rsplit("_", 1)
    cls, shape = classes[base]
    torch.manual_seed(zlib.crc32(name.encode()))
    module = cls().eval()
    x = torch.randn(*shape)
    target = os.path.join(out_dir, name)
    tmp = target + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    pt = os.path.join(tmp, "model.pt")
    if method == "saved":
        import torch2onnx
        block = type(module.b0)
        torch2onnx.save(module, (x,), pt, export_modules_as_functions={block})
    else:
        ts = torch.jit.script(module) if method == "script" else torch.jit.trace(module, (x,), check_trace=False)
        ts.save(pt)
    d = os.path.join(tmp, "size_0")
    os.makedirs(d)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(mf.outputs_meta(pt, [x], 1e-4, d, method), f, indent=1)
    with open(os.path.join(d, "input_0.pb"), "wb") as f:
        f.write(tensor_proto(x))
    with open(os.path.join(tmp, "export.json"), "w") as f:
        json.dump({"cli_args": [] if method == "saved" else ["--input", mf.cli_spec(x)]}, f, indent=1)
    shutil.rmtree(target, ignore_errors=True)
    os.rename(tmp, target)


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(CASES))
        return
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    out_dir = sys.argv[1]
    import make_fixtures as mf

    def generate(_digest):
        import torch
        torch.set_num_threads(1)
        classes = models()
        for name in CASES:
            write_case(out_dir, name, classes)

    mf.generate_once(out_dir, __file__, generate,
                     extra_sources=[os.path.join(SOURCE_DIR, "python", "torch2onnx", "__init__.py")])


if __name__ == "__main__":
    main()
