#!/usr/bin/python3
"""Export times and node counts of the detection fixtures: torch2onnx next to torch.onnx.export.

    /usr/bin/python3 tests/detection/compare_with_torch_onnx.py FIXTURES_DIR CLI MODEL... [--opsets 11,17]

FIXTURES_DIR holds make_detection_fixtures.py's output (e.g. build/e2e/detection). Each model's
model.pt is exported by `CLI export` with the fixture's arguments (whole process, wall time) and by
torch.onnx.export of the same TorchScript module in this process (wall time of the call; torch and
torchvision already imported), with the same dynamic axes. Prints one line per model and opset.
"""
import json
import os
import subprocess
import sys
import time


def _fields(buf, start, end):
    """(field number, wire type, value start, value end) of each protobuf field in buf[start:end]."""
    def varint(pos):
        value, shift = 0, 0
        while True:
            b = buf[pos]
            value |= (b & 0x7F) << shift
            pos += 1
            if b < 0x80:
                return value, pos
            shift += 7

    pos = start
    while pos < end:
        key, pos = varint(pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, nxt = varint(pos)
            yield number, wire, pos, nxt
        elif wire == 2:
            length, pos = varint(pos)
            nxt = pos + length
            yield number, wire, pos, nxt
        elif wire == 1:
            nxt = pos + 8
            yield number, wire, pos, nxt
        elif wire == 5:
            nxt = pos + 4
            yield number, wire, pos, nxt
        else:
            raise ValueError(f"wire type {wire}")
        pos = nxt


def onnx_nodes(path):
    """Top-level nodes of an ONNX file: ModelProto.graph (field 7) -> GraphProto.node (field 1).
    (Debian's Python has no onnx module.)"""
    with open(path, "rb") as f:
        buf = f.read()
    for number, wire, start, end in _fields(buf, 0, len(buf)):
        if number == 7 and wire == 2:
            return sum(1 for n, w, _, _ in _fields(buf, start, end) if n == 1 and w == 2)
    return 0


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--opsets")]
    opsets = [11, 17]
    for a in sys.argv[1:]:
        if a.startswith("--opsets"):
            opsets = [int(x) for x in a.split("=", 1)[1].split(",")]
    if len(args) < 3:
        raise SystemExit(__doc__)
    root, cli, models = args[0], args[1], args[2:]
    import torch
    import torchvision  # noqa: F401  (registers the torchvision:: symbolics with torch.onnx)

    print(f"{'model':40} {'opset':>5} {'torch2onnx s':>12} {'nodes':>6} {'torch.onnx s':>12} {'nodes':>6}")
    for name in models:
        d = os.path.join(root, name)
        with open(os.path.join(d, "export.json")) as f:
            cli_args = json.load(f)["cli_args"]
        with open(os.path.join(d, "size_0", "meta.json")) as f:
            meta = json.load(f)
        shape = meta["inputs"][0]["shape"]
        example = torch.rand(*shape)
        for opset in opsets:
            out = f"/tmp/t2o_detection_{name}_{opset}.onnx"
            start = time.perf_counter()
            r = subprocess.run([cli, "export", os.path.join(d, "model.pt"), "-o", out, "--opset", str(opset), "-q"]
                               + cli_args, capture_output=True, text=True)
            t2o_seconds = time.perf_counter() - start
            t2o_nodes = onnx_nodes(out) if r.returncode == 0 else f"failed: {r.stderr.strip()[:80]}"

            module = torch.jit.load(os.path.join(d, "model.pt")).eval()
            ref = f"/tmp/torch_onnx_{name}_{opset}.onnx"
            start = time.perf_counter()
            try:
                torch.onnx.export(module, (example,), ref, opset_version=opset, input_names=["image"],
                                  dynamic_axes={"image": {1: "height", 2: "width"}})
                ref_seconds = time.perf_counter() - start
                ref_nodes = onnx_nodes(ref)
            except Exception as e:  # report, keep going
                ref_seconds = time.perf_counter() - start
                ref_nodes = f"failed: {str(e).splitlines()[0][:80]}"
            print(f"{name:40} {opset:>5} {t2o_seconds:>12.1f} {t2o_nodes!s:>6} {ref_seconds:>12.1f} {ref_nodes!s:>6}",
                  flush=True)


if __name__ == "__main__":
    main()
