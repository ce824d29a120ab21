#!/usr/bin/env python3
"""Loads the probe models written by probe_models.py with this PyTorch (meant: 1.13) and records what happens.

    /usr/bin/python3 tests/torch2x/probe_load.py OUTDIR   # Debian 12 PyTorch 1.13

For each OUTDIR/*.pt: torch.jit.load's result (ok, or the exception's type and message), then, when
it loaded, a run on the saved inputs compared with PyTorch 2.x's saved outputs. Writes
OUTDIR/load_<torch version>.json and prints one line per model.
"""
import glob
import json
import os
import sys

import numpy as np
import torch

try:  # torchvision's operators (torchvision::nms, ...) are registered by importing it
    import torchvision  # noqa: F401
except ImportError:
    pass


def flat(o):
    if isinstance(o, torch.Tensor):
        return [o]
    if isinstance(o, (tuple, list)):
        return [t for x in o for t in flat(x)]
    return []


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    res = {"torch": torch.__version__, "models": {}}
    for path in sorted(glob.glob(os.path.join(outdir, "*.pt"))):
        name = os.path.basename(path)[:-3]
        rec = res["models"][name] = {}
        try:
            m = torch.jit.load(path)
        except Exception as e:
            msg = str(e).strip()
            rec["load"] = "error"
            rec["error_type"] = type(e).__name__
            rec["error"] = msg
            rec["error_first_line"] = msg.splitlines()[0] if msg else ""
            print(f"{name}: LOAD FAILED {type(e).__name__}: {rec['error_first_line']}")
            continue
        rec["load"] = "ok"
        data = np.load(os.path.join(outdir, name + ".npz"))
        ins = [torch.from_numpy(data[k]) for k in sorted((k for k in data if k.startswith("in")), key=lambda k: int(k[2:]))]
        outs = [data[k] for k in sorted((k for k in data if k.startswith("out")), key=lambda k: int(k[3:]))]
        try:
            with torch.no_grad():
                got = flat(m(*ins))
            ok = len(got) == len(outs) and all(
                g.shape == tuple(o.shape) and np.allclose(g.numpy(), o, atol=1e-4, rtol=1e-4, equal_nan=True)
                for g, o in zip(got, outs))
            rec["run"] = "match" if ok else "MISMATCH"
        except Exception as e:
            msg = str(e).strip()
            rec["run"] = "error"
            rec["run_error"] = f"{type(e).__name__}: {msg.splitlines()[0] if msg else ''}"
            rec["run_error_full"] = msg
        print(f"{name}: loads; run {rec['run']}" + (f" ({rec['run_error']})" if rec["run"] == "error" else ""))
    out = os.path.join(outdir, f"load_{torch.__version__.split('+')[0]}.json")
    with open(out, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print(f"-> {out}")


if __name__ == "__main__":
    main()
