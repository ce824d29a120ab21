#!/usr/bin/python3
"""Node counts of our exports against torch.onnx.export's (do_constant_folding=True) on the same .pt files.

    /usr/bin/python3 bench/node_counts.py [--opset N] [--fixtures DIR] [--torch2onnx BIN] [--work-dir DIR]

Reads the zoo fixtures (tests/zoo/make_zoo_fixtures.py: traced or scripted torchvision models,
DIR/NAME-HASH/model.pt and meta.json; default: the fixture cache the tests fill), exports each with
both exporters at the same opset and input sizes, and counts the nodes of each file the same way
(`torch2onnx show`, subgraphs included). One line per model; "MORE" marks a model where ours has more
nodes, with the op types that make the difference. Exit status 1 if any model has more.
Run with Debian's Python (torch 1.13); it runs torch.onnx.export, so expect a few minutes.
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def node_ops(t2o, path):
    text = subprocess.run([t2o, "show", path], capture_output=True, text=True, check=True).stdout
    return re.findall(r"= (\w+::\w+)[\[(]", text)


def main():
    cache = os.environ.get("T2O_FIXTURE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "torch2onnx", "fixtures")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--fixtures", default=os.path.join(cache, "zoo"))
    ap.add_argument("--torch2onnx", default=os.path.join(REPO, "build", "bin", "torch2onnx"))
    ap.add_argument("--work-dir", default="/tmp/t2o-node-counts")
    args = ap.parse_args()

    import torch  # after argument parsing: --help needs no torch
    os.makedirs(args.work_dir, exist_ok=True)
    models = sorted(glob.glob(os.path.join(args.fixtures, "*", "meta.json")))
    if not models:
        sys.exit(f"no fixtures in {args.fixtures} (run the zoo tests once, or pass --fixtures)")
    more = 0
    for meta_path in models:
        folder = os.path.dirname(meta_path)
        meta = json.load(open(meta_path))
        name = meta.get("name", os.path.basename(folder))
        ours = os.path.join(args.work_dir, name + ".ours.onnx")
        theirs = os.path.join(args.work_dir, name + ".torch_onnx.onnx")
        run = subprocess.run([args.torch2onnx, "export", os.path.join(folder, "model.pt"), "-o", ours,
                              "--opset", str(args.opset)] + [w for s in meta["cli_inputs"] for w in ("--input", s)],
                             capture_output=True, text=True)
        if run.returncode:
            print(f"{name:32s} ours failed: {run.stderr.strip().splitlines()[-1][:160]}", flush=True)
            more += 1
            continue
        module = torch.jit.load(os.path.join(folder, "model.pt"))
        example = tuple(torch.randn(i["shape"]) if i["dtype"].startswith("float")
                        else torch.zeros(i["shape"], dtype=getattr(torch, i["dtype"])) for i in meta["inputs"])
        try:
            torch.onnx.export(module, example, theirs, opset_version=args.opset, do_constant_folding=True)
        except Exception as e:  # torch.onnx refuses some models we convert
            print(f"{name:32s} ours {len(node_ops(args.torch2onnx, ours)):5d}  torch.onnx failed: {str(e).splitlines()[0][:100]}",
                  flush=True)
            continue
        a, b = node_ops(args.torch2onnx, ours), node_ops(args.torch2onnx, theirs)
        line = f"{name:32s} ours {len(a):5d}  torch.onnx {len(b):5d}"
        if len(a) > len(b):
            more += 1
            ca, cb = collections.Counter(a), collections.Counter(b)
            line += "  MORE: " + ", ".join(f"{op} +{ca[op] - cb[op]}" for op in ca if ca[op] > cb[op])
        print(line, flush=True)
    sys.exit(1 if more else 0)


if __name__ == "__main__":
    main()
