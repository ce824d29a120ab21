#!/usr/bin/python3
"""Quantized models: torch2onnx next to torch.onnx.export (export time, node count, op types).

    /usr/bin/python3 tests/quantized/bench_quantized.py [--models a,b] [--opset 13] [--cli PATH]
                                                        [--work-dir DIR] [--repeat N]

Fixtures come from tests/quantized/make_quant_fixtures.py (WORK/fixtures). For each model, ours is the
whole torch2onnx process (wall and CPU seconds); theirs is torch.onnx.export in a fresh process
(bench/run_bench.py --_theirs): the process wall time and the export call alone. Best of --repeat.
Node counts are top-level ONNX nodes; "QDQ" is QuantizeLinear + DequantizeLinear nodes.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import run_bench as rb  # noqa: E402

DEFAULT = ("tv_resnet18,tv_mobilenet_v2,tv_mobilenet_v3_large,tv_shufflenet_v2_x1_0,tv_googlenet,"
           "tv_inception_v3,tv_resnet50,qat,dyn_linear,dyn_lstm")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=DEFAULT)
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "torch2onnx"))
    ap.add_argument("--work-dir", default="/tmp/t2o_bench_quantized")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    fixtures = os.path.join(a.work_dir, "fixtures")
    logs = os.path.join(a.work_dir, "logs")
    os.makedirs(logs, exist_ok=True)
    rows = []
    for name in a.models.split(","):
        subprocess.run([sys.executable, os.path.join(HERE, "make_quant_fixtures.py"), fixtures, name], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        fix = os.path.join(fixtures, name)
        with open(os.path.join(fix, "meta.json")) as f:
            meta = json.load(f)
        pt = os.path.join(fix, "model.pt")
        row = {"model": name}
        out = os.path.join(a.work_dir, name + ".ours.onnx")
        cmd = [a.cli, "export", pt, "-o", out, "--opset", str(a.opset), "-q"]
        for s in meta["cli_inputs"]:
            cmd += ["--input", s]
        best = None
        for _ in range(a.repeat):
            rc, wall, rss, so, se, cpu = rb.run_measured(cmd, os.path.join(logs, name + ".ours"), 600)
            if rc != 0:
                row["ours"] = "FAIL: " + rb.one_line(rc, so, se)
                break
            best = min(best or (wall, cpu), (wall, cpu))
        if best:
            top, _, ops = rb.onnx_node_count(out)
            row["ours"] = {"wall_s": best[0], "cpu_s": best[1], "nodes": top,
                           "qdq": ops.get("QuantizeLinear", 0) + ops.get("DequantizeLinear", 0), "ops": ops}
        out = os.path.join(a.work_dir, name + ".theirs.onnx")
        specs = [s.replace("quint8", "float32") for s in meta["cli_inputs"]]
        cmd = [sys.executable, os.path.join(ROOT, "bench", "run_bench.py"), "--_theirs", pt, out, str(a.opset),
               json.dumps(specs)]
        best = None
        for _ in range(a.repeat):
            rc, wall, rss, so, se, cpu = rb.run_measured(cmd, os.path.join(logs, name + ".theirs"), 600)
            if rc != 0:
                row["theirs"] = "FAIL: " + rb.one_line(rc, so, se)
                break
            rep = json.loads([l for l in so.splitlines() if l.startswith("{")][-1])
            best = min(best or (wall, rep["export_s"]), (wall, rep["export_s"]))
        if best:
            top, _, ops = rb.onnx_node_count(out)
            row["theirs"] = {"wall_s": best[0], "export_s": best[1], "nodes": top,
                             "qdq": ops.get("QuantizeLinear", 0) + ops.get("DequantizeLinear", 0), "ops": ops}
        rows.append(row)
        print(json.dumps(row), flush=True)
    print()
    print("| model | torch2onnx: process s (CPU s) | nodes (QDQ) | torch.onnx.export: process s / export s | nodes (QDQ) |")
    print("|---|---|---|---|---|")
    for r in rows:
        o, t = r.get("ours"), r.get("theirs")
        oc = ("%.2f (%.2f) | %d (%d)" % (o["wall_s"], o["cpu_s"], o["nodes"], o["qdq"])) if isinstance(o, dict) else "%s | -" % o
        tc = ("%.2f / %.2f | %d (%d)" % (t["wall_s"], t["export_s"], t["nodes"], t["qdq"])) if isinstance(t, dict) else "%s | -" % t
        print("| %s | %s | %s |" % (r["model"], oc, tc))


if __name__ == "__main__":
    main()
