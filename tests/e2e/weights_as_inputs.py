#!/usr/bin/env python3
"""A comparison directory for a model exported with --no-weights (torch.onnx's export_params=False).

    weights_as_inputs.py MODEL.pt FIXTURE_DIR OUT_DIR

Writes OUT_DIR/meta.json (tests/ort/compare.js's format): the fixture's inputs (fed by position),
then every tensor of the module's state_dict fed BY NAME ("conv1.weight"), marked optional (a buffer
the graph does not read, such as num_batches_tracked, is no graph input), and the fixture's expected
outputs. The files are copied into OUT_DIR. A weight the graph reads but that is not fed leaves a
graph input unfed, which compare.js reports as a failure.
"""
import json
import os
import shutil
import sys

import torch


def main(pt, fixture_dir, out_dir):
    with open(os.path.join(fixture_dir, "meta.json")) as f:
        meta = json.load(f)
    os.makedirs(out_dir, exist_ok=True)
    for spec in meta["inputs"] + meta["outputs"]:
        shutil.copyfile(os.path.join(fixture_dir, spec["file"]), os.path.join(out_dir, spec["file"]))
    names = {torch.float32: "float32", torch.float64: "float64", torch.int64: "int64", torch.int32: "int32",
             torch.bool: "bool", torch.uint8: "uint8", torch.int8: "int8"}
    weights = []
    for k, (name, t) in enumerate(torch.jit.load(pt).state_dict().items()):
        file = f"weight_{k}.bin"
        t = t.detach().contiguous()
        with open(os.path.join(out_dir, file), "wb") as f:
            f.write(t.numpy().tobytes())
        weights.append({"name": name, "optional": True, "file": file, "dtype": names[t.dtype],
                        "shape": list(t.shape)})
    meta["inputs"] = meta["inputs"] + weights
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
