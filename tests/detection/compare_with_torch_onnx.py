#!/usr/bin/python3
"""Export time, CPU, peak memory and node counts of the detection fixtures: torch2onnx next to
torch.onnx.export, and whether each side's ONNX runs in ONNX Runtime and matches PyTorch.

    /usr/bin/python3 tests/detection/compare_with_torch_onnx.py FIXTURES_DIR CLI MODEL...
        [--opsets 11,17] [--json OUT] [--timeout S] [--node PATH] [--skip-ort]

FIXTURES_DIR holds make_detection_fixtures.py's output (e.g. build/e2e/detection). For each model
and opset:
  ours    `CLI export model.pt -o OUT --opset N -q` with the fixture's arguments (dynamic H and W):
          wall and CPU (user + system) time and peak RSS of that whole process;
  theirs  torch.onnx.export of the same TorchScript file with the same dynamic axes, in a fresh
          /usr/bin/python3 child: the export call alone (wall and CPU, perf_counter/process_time,
          after import torch, torchvision and torch.jit.load) and the whole child process (wall,
          CPU, peak RSS);
  nodes   top-level nodes (+ nodes inside Loop/If bodies) of each ONNX file;
  ORT     each ONNX file run in ONNX Runtime on the fixture's two images (size_0: the example,
          size_1: another size) and compared with PyTorch by compare_detections.js (detections
          matched by label, score and IoU): "ok" or the reason it failed, per size.
Peak RSS and the process measurement are bench/run_bench.py's (GNU time's %M, else wait4). The
machine's load average (`uptime`) is printed before and after, since wall times depend on it.
The driver does not import torch.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "bench"))
PY = "/usr/bin/python3"  # the Python with torch

from run_bench import one_line, onnx_node_count, run_measured  # noqa: E402


def child_theirs(pt, out, opset, shape_json):
    """torch.onnx.export of pt in this (fresh) process; prints the call's wall and CPU time."""
    import torch
    import torchvision  # noqa: F401  (registers the torchvision:: symbolics with torch.onnx)

    module = torch.jit.load(pt).eval()
    example = torch.rand(*json.loads(shape_json))
    wall, cpu = time.perf_counter(), time.process_time()
    torch.onnx.export(module, (example,), out, opset_version=int(opset), input_names=["image"],
                      dynamic_axes={"image": {1: "height", 2: "width"}})
    sys.stdout.write("\n" + json.dumps({"export_s": time.perf_counter() - wall,
                                        "export_cpu_s": time.process_time() - cpu}) + "\n")


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run_in_ort(node, onnx, fixture_dir, sizes, timeout):
    """compare_detections.js on each size: a list of "ok (fraction)" or the failure's reason."""
    results = []
    for k in range(sizes):
        try:
            r = subprocess.run([node, os.path.join(HERE, "compare_detections.js"), onnx,
                                os.path.join(fixture_dir, f"size_{k}")], capture_output=True, text=True,
                               timeout=timeout)
            text = (r.stdout + r.stderr).strip().replace("compare_detections.js: ", "")
            if r.returncode == 0:
                fraction = text.split("fraction ")[-1].split(" ")[0]
                results.append(f"ok ({fraction})")
            else:
                results.append(f"FAIL: {text.splitlines()[-1] if text else 'exit %d' % r.returncode}")
        except subprocess.TimeoutExpired:
            results.append(f"FAIL: ONNX Runtime did not finish in {timeout} s")
    return results


def nodes_text(path):
    counts = onnx_node_count(path) if os.path.exists(path) else None
    if counts is None:
        return None, None
    return counts[0], counts[1]


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--_theirs":
        child_theirs(*sys.argv[2:6])
        return
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("fixtures")
    ap.add_argument("cli")
    ap.add_argument("models", nargs="+")
    ap.add_argument("--opsets", default="11,17")
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--node", default="node")
    ap.add_argument("--skip-ort", action="store_true")
    ap.add_argument("--out-dir", default="/tmp/t2o_detection_compare")
    a = ap.parse_args()
    opsets = [int(x) for x in a.opsets.split(",")]
    os.makedirs(a.out_dir, exist_ok=True)

    print(f"load average before: {load_average()}", flush=True)
    rows = []
    for name in a.models:
        d = os.path.join(a.fixtures, name)
        with open(os.path.join(d, "export.json")) as f:
            spec = json.load(f)
        with open(os.path.join(d, "size_0", "meta.json")) as f:
            shape = json.load(f)["inputs"][0]["shape"]
        pt = os.path.join(d, "model.pt")
        for opset in opsets:
            row = {"model": name, "opset": opset, "load_before": load_average()}
            ours = os.path.join(a.out_dir, f"{name}_{opset}_torch2onnx.onnx")
            rc, wall, rss, so, se, cpu = run_measured(
                [a.cli, "export", pt, "-o", ours, "--opset", str(opset), "-q"] + spec["cli_args"],
                os.path.join(a.out_dir, f"{name}_{opset}_torch2onnx"), a.timeout)
            row["ours"] = {"ok": rc == 0, "wall_s": wall, "cpu_s": cpu, "peak_rss_mib": rss / 1024.0,
                           "error": None if rc == 0 else one_line(rc, so, se)}
            row["ours"]["nodes"], row["ours"]["nodes_with_subgraphs"] = nodes_text(ours) if rc == 0 else (None, None)

            theirs = os.path.join(a.out_dir, f"{name}_{opset}_torch_onnx.onnx")
            if os.path.exists(theirs):
                os.remove(theirs)
            rc2, wall2, rss2, so2, se2, cpu2 = run_measured(
                [PY, os.path.abspath(__file__), "--_theirs", pt, theirs, str(opset), json.dumps(shape)],
                os.path.join(a.out_dir, f"{name}_{opset}_torch_onnx"), a.timeout)
            row["theirs"] = {"ok": rc2 == 0, "process_wall_s": wall2, "process_cpu_s": cpu2,
                             "peak_rss_mib": rss2 / 1024.0, "error": None if rc2 == 0 else one_line(rc2, so2, se2)}
            if rc2 == 0:
                row["theirs"].update(json.loads(so2.strip().splitlines()[-1]))
                row["theirs"]["nodes"], row["theirs"]["nodes_with_subgraphs"] = nodes_text(theirs)
            row["load_after"] = load_average()
            if not a.skip_ort:
                sizes = spec.get("sizes", 1)
                row["ours"]["ort"] = run_in_ort(a.node, ours, d, sizes, a.timeout) if rc == 0 else None
                row["theirs"]["ort"] = run_in_ort(a.node, theirs, d, sizes, a.timeout) if rc2 == 0 else None
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(f"load average after: {load_average()}")

    def f(v, spec):
        return "-" if v is None else format(v, spec)

    def ort(side):
        return "-" if not side.get("ort") else " / ".join(side["ort"])

    print()
    print("| model | opset | ours s | ours CPU s | ours MiB | ours nodes | torch.onnx export s | export CPU s "
          "| torch.onnx process s | process CPU s | torch.onnx MiB | torch.onnx nodes | ours in ORT (size_0 / size_1) "
          "| torch.onnx in ORT (size_0 / size_1) | load |")
    print("|" + "---|" * 15)
    for r in rows:
        o, t = r["ours"], r["theirs"]
        on = f"{o['nodes']} ({o['nodes_with_subgraphs']})" if o["ok"] else "FAIL: " + o["error"]
        tn = f"{t['nodes']} ({t['nodes_with_subgraphs']})" if t["ok"] else "FAIL: " + t["error"]
        print(f"| {r['model']} | {r['opset']} | {f(o['wall_s'], '.1f')} | {f(o['cpu_s'], '.1f')} "
              f"| {f(o['peak_rss_mib'], '.0f')} | {on} | {f(t.get('export_s'), '.1f')} | {f(t.get('export_cpu_s'), '.1f')} "
              f"| {f(t['process_wall_s'], '.1f')} | {f(t['process_cpu_s'], '.1f')} | {f(t['peak_rss_mib'], '.0f')} | {tn} "
              f"| {ort(o)} | {ort(t)} | {r['load_before']} → {r['load_after']} |")
    if a.json:
        with open(a.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
