#!/usr/bin/python3
"""Runs a `torch2onnx decompose`d model in this PyTorch WITHOUT the torch2onnx op library and compares
it with each fixture's expected outputs (made with the library's kernels).

    /usr/bin/python3 check_decomposed.py MODEL.pt FIXTURE_DIR[,FIXTURE_DIR...] [MODEL.pt FIXTURE_DIRS]...

Exit 0 when every output matches within the fixture's rtol (|a-b| <= rtol*(1+|b|)), else 1 naming
each mismatch. Prints one line per model: "MODEL max_abs_diff X".
"""
import json
import os
import sys

import numpy as np
import torch

DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
          "int32": np.int32, "bool": np.bool_}


def read(d, spec):
    a = np.fromfile(os.path.join(d, spec["file"]), dtype=DTYPES[spec["dtype"]]).reshape(spec["shape"])
    return torch.from_numpy(a.copy())


def check(model_path, dirs):
    model = torch.jit.load(model_path)
    graph_text = "\n".join(str(m.graph) for m in [model.forward] + [getattr(s, "forward") for s in model.modules()
                                                                      if hasattr(s, "forward")])
    if "onnx::" in graph_text:
        print(f"{model_path}: the decomposed model still calls onnx:: ops")
        return False
    assert "torch2onnx_ops" not in sys.modules
    worst = 0.0
    ok = True
    for d in dirs:
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        inputs = [read(d, s) for s in meta["inputs"]]
        with torch.no_grad():
            outs = model(*inputs)
        outs = outs if isinstance(outs, (tuple, list)) else [outs]
        for k, (got, spec) in enumerate(zip(outs, meta["outputs"])):
            want = read(d, spec)
            if tuple(got.shape) != tuple(want.shape) or got.dtype != want.dtype:
                print(f"{d}: output {k}: {got.dtype}{list(got.shape)} vs {want.dtype}{list(want.shape)}")
                ok = False
                continue
            if got.numel() == 0:
                continue
            diff = (got.double() - want.double()).abs()
            worst = max(worst, float(diff.max()))
            if not bool((diff <= meta["rtol"] * (1 + want.double().abs())).all()):
                print(f"{d}: output {k}: max |diff| {float(diff.max())}")
                ok = False
    print(f"{os.path.basename(model_path)} max_abs_diff {worst}")
    return ok


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        raise SystemExit(__doc__)
    ok = True
    for model_path, dirs in zip(args[0::2], args[1::2]):
        ok = check(model_path, dirs.split(",")) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
