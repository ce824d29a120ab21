#!/usr/bin/python3
"""Benchmark torch2onnx against torch.onnx.export (TorchScript exporter).

Run with Debian's Python, which has torch:  /usr/bin/python3 bench/run_bench.py
See bench/README.md for the columns.

The driver process itself never imports torch: building models and running
torch.onnx.export happen in child processes.  This keeps the driver small,
which matters because a child's peak RSS (ru_maxrss from wait4) can include
pages it shared with its parent between fork and exec.
"""

import argparse
import filecmp
import json
import mmap
import os
import shlex
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3"  # the Python with torch (the first python3 on PATH has none)
MiB = 1024.0 * 1024.0

# name -> (input specs in torch2onnx --input syntax, heavy?)
MODELS = {
    "resnet18": (["float32[1,3,224,224]"], False),
    "resnet50": (["float32[1,3,224,224]"], False),
    "mobilenet_v2": (["float32[1,3,224,224]"], False),
    "vit_b_16": (["float32[1,3,224,224]"], False),
    "gpt350m": (["int64[1,16]"], True),
    "mlp2700": (["float32[1,8192]"], True),
    "deep100k": (["float32[1,8]"], True),
    # The same chain at a quarter and a half of the length: time per node should stay flat.
    "deep25k": (["float32[1,8]"], True),
    "deep50k": (["float32[1,8]"], True),
}
DEFAULT_MODELS = "resnet18,resnet50"

# .pt2 rows (--pt2, or NAME.pt2 in --models): the same model saved by torch.export.save in PyTorch 2.14
# (the Debian sid root of scripts/torch2x_env.sh; the host's PyTorch 1.13 has no torch.export), once, into
# --pt2-dir, and exported by our CLI and library from the program alone (no --input). torch.onnx's own .pt2
# path (torch.onnx.export(..., dynamo=True)) needs onnxscript, which Debian does not package: the
# TorchScript row beside it has torch.onnx.export's figures.
PT2_MODELS = ["resnet50", "vit_b_16", "mlp2700"]
PT2_SUFFIX = ".pt2"

# The batch row (--batch): torchvision classification models at 224x224, converted by one
# `torch2onnx export --batch` process, by one torch2onnx process each and by one torch.onnx.export
# process each. Built like the models above (eval, random weights, traced).
BATCH_MODELS = ["resnet18", "resnet34", "resnet50", "resnext50_32x4d", "wide_resnet50_2", "alexnet",
                "densenet121", "squeezenet1_0", "squeezenet1_1", "mobilenet_v2", "mobilenet_v3_small",
                "mobilenet_v3_large", "shufflenet_v2_x1_0", "mnasnet1_0", "efficientnet_b0", "regnet_x_400mf",
                "regnet_y_400mf", "googlenet", "convnext_tiny", "vit_b_16"]
# Auxiliary classifiers only run in training mode: left out (as tests/zoo does).
TORCHVISION_KWARGS = {"googlenet": {"aux_logits": False, "init_weights": True}}
for _n in BATCH_MODELS:
    MODELS.setdefault(_n, (["float32[1,3,224,224]"], False))

# The detection rows (--models maskrcnn_resnet50_fpn): torchvision's detectors as the detection tests
# build them (tests/detection/make_detection_fixtures.py: random weights, traced at 240x320) and exported
# with dynamic height and width by both sides, measured by tests/detection/compare_with_torch_onnx.py.
DETECTION_MODELS = ["maskrcnn_resnet50_fpn", "keypointrcnn_resnet18_fpn", "maskrcnn_resnet18_fpn"]

# --------------------------------------------------------------------------
# Model building (runs in a child: run_bench.py --_build NAME PT META)
# --------------------------------------------------------------------------


def _build_model(name):
    import torch
    import torch.nn as nn

    if name in ("resnet18", "resnet50", "mobilenet_v2", "vit_b_16") or name in BATCH_MODELS:
        import torchvision

        return getattr(torchvision.models, name)(weights=None, **TORCHVISION_KWARGS.get(name, {}))

    if name == "gpt350m":
        # GPT-2-medium-like decoder: 24 layers, width 1024, 16 heads, vocab
        # 50257, 1024 positions, tied embedding / LM head (~355M params).
        class Block(nn.Module):
            def __init__(self, d, h):
                super().__init__()
                self.h = h
                self.ln1 = nn.LayerNorm(d)
                self.qkv = nn.Linear(d, 3 * d)
                self.proj = nn.Linear(d, d)
                self.ln2 = nn.LayerNorm(d)
                self.fc = nn.Linear(d, 4 * d)
                self.out = nn.Linear(4 * d, d)

            def forward(self, x):
                b, t, d = x.shape
                q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
                q = q.view(b, t, self.h, d // self.h).transpose(1, 2)
                k = k.view(b, t, self.h, d // self.h).transpose(1, 2)
                v = v.view(b, t, self.h, d // self.h).transpose(1, 2)
                att = (q @ k.transpose(-2, -1)) * (1.0 / (d // self.h) ** 0.5)
                mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=1)
                att = att.masked_fill(mask, float("-inf")).softmax(dim=-1)
                y = (att @ v).transpose(1, 2).reshape(b, t, d)
                x = x + self.proj(y)
                return x + self.out(nn.functional.gelu(self.fc(self.ln2(x))))

        class GPT(nn.Module):
            def __init__(self, vocab=50257, ctx=1024, d=1024, layers=24, heads=16):
                super().__init__()
                self.wte = nn.Embedding(vocab, d)
                self.wpe = nn.Embedding(ctx, d)
                self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
                self.ln_f = nn.LayerNorm(d)
                self.head = nn.Linear(d, vocab, bias=False)
                self.head.weight = self.wte.weight  # tied, as in GPT-2

            def forward(self, idx):
                pos = torch.arange(idx.shape[1], device=idx.device).unsqueeze(0)
                x = self.wte(idx) + self.wpe(pos)
                for blk in self.blocks:
                    x = blk(x)
                return self.head(self.ln_f(x))

        return GPT()

    if name == "mlp2700":
        # 10 x Linear(8192, 8192) + ReLU: 10 * (8192*8192 + 8192) * 4 B = 2.68e9 B.
        layers = []
        for i in range(10):
            lin = nn.Linear(8192, 8192)
            layers.append(lin)
            if i != 9:
                layers.append(nn.ReLU())
        return nn.Sequential(*layers)

    if name in ("deep25k", "deep50k", "deep100k"):
        # N/3 x (add, mul, relu) on a [1,8] tensor = ~N ops once traced.
        repeats = {"deep25k": 8334, "deep50k": 16667, "deep100k": 33334}[name]

        class Deep(nn.Module):
            def forward(self, x):
                for i in range(repeats):
                    x = x + 0.5
                    x = x * 0.999
                    x = torch.relu(x)
                return x

        return Deep()

    raise SystemExit("unknown model " + name)


def _example_inputs(specs):
    import torch

    out = []
    for s in specs:
        dt, dims = s.rstrip("]").split("[")
        shape = [int(d) for d in dims.split(",") if d.strip()]
        if dt.startswith("int"):
            out.append(torch.randint(0, 100, shape, dtype=getattr(torch, dt)))
        else:
            out.append(torch.randn(shape, dtype=getattr(torch, dt)))
    return tuple(out)


def child_build_pt2(name, pt2_path, meta_path):
    """Runs in the PyTorch 2.x root: the model of child_build, eval, random weights (seed 0), captured by
    torch.export.export at its example inputs and saved by torch.export.save."""
    import torch

    torch.manual_seed(0)
    t0 = time.perf_counter()
    model = _build_model(name).eval()
    specs = MODELS[name][0]
    args = _example_inputs(specs)
    ep = torch.export.export(model, args)
    # torch.export.save names the archive's top folder after the file: saved under its own name in a
    # temporary folder, then moved.
    tmp_dir = pt2_path + ".tmp"
    shutil.rmtree(tmp_dir, ignore_errors=True)
    os.makedirs(tmp_dir)
    tmp = os.path.join(tmp_dir, os.path.basename(pt2_path))
    torch.export.save(ep, tmp)
    os.replace(tmp, pt2_path)
    os.rmdir(tmp_dir)
    meta = {
        "model": name,
        "inputs": specs,
        "param_bytes": sum(p.numel() * p.element_size() for p in model.parameters()),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in model.buffers()),
        "pt_bytes": os.path.getsize(pt2_path),
        "torch": torch.__version__,
        "build_s": time.perf_counter() - t0,
    }
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)


def child_build(name, pt_path, meta_path):
    import torch

    torch.manual_seed(0)
    t0 = time.perf_counter()
    # Trace with autograd enabled: under no_grad, eval-mode nn.MultiheadAttention
    # (vit_b_16) takes its fused fast path (aten::_native_multi_head_attention),
    # which is not what a normal exported model contains.
    model = _build_model(name).eval()
    specs = MODELS[name][0]
    args = _example_inputs(specs)
    traced = torch.jit.trace(model, args, check_trace=False)
    tmp = pt_path + ".tmp"
    traced.save(tmp)
    os.replace(tmp, pt_path)
    meta = {
        "model": name,
        "inputs": specs,
        "param_bytes": sum(p.numel() * p.element_size() for p in model.parameters()),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in model.buffers()),
        "pt_bytes": os.path.getsize(pt_path),
        "torch": torch.__version__,
        "build_s": time.perf_counter() - t0,
    }
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)


# --------------------------------------------------------------------------
# torch.onnx.export in a fresh process (run_bench.py --_theirs PT OUT OPSET SPECS)
# --------------------------------------------------------------------------


def child_theirs(pt_path, out_path, opset, specs_json):
    import torch

    t0 = time.perf_counter()
    model = torch.jit.load(pt_path).eval()
    args = _example_inputs(json.loads(specs_json))
    t1 = time.perf_counter()
    torch.onnx.export(model, args, out_path, opset_version=int(opset))
    t2 = time.perf_counter()
    sys.stdout.write("\n" + json.dumps({"load_s": t1 - t0, "export_s": t2 - t1}) + "\n")
    sys.stdout.flush()


# --------------------------------------------------------------------------
# Driver helpers (no torch here)
# --------------------------------------------------------------------------


GNU_TIME = "/usr/bin/time"


def settle():
    """Writes back what earlier runs left dirty in the page cache, untimed, before each timed run (both
    sides, and each copy floor sample): otherwise a run pays for the previous run's 2.5 GB of
    writeback, and which side pays depends on the order of the runs."""
    os.sync()


def run_measured(cmd, log_prefix, timeout):
    """Run cmd; return (rc, wall_s, peak_rss_kib, stdout, stderr, cpu_s) of that child alone.

    cpu_s is user + system CPU time (wait4's rusage, which includes what the child waited for):
    unlike wall time it barely moves when other work shares the machine.

    Peak RSS comes from GNU time (-f %M) when /usr/bin/time exists, else from
    wait4()'s ru_maxrss.  The latter over-reports small children: Linux carries
    the exec-ing parent's RSS high-water mark (this driver's, ~30 MiB) into the
    child's ru_maxrss; GNU time is a ~1 MiB parent, so its figure is clean.
    """
    rss_file = log_prefix + ".rss"
    use_time = os.access(GNU_TIME, os.X_OK)
    full = ([GNU_TIME, "-f", "%M", "-o", rss_file, "--"] + cmd) if use_time else cmd
    out_f = open(log_prefix + ".out", "w+b")
    err_f = open(log_prefix + ".err", "w+b")
    settle()
    t0 = time.perf_counter()
    p = subprocess.Popen(full, stdout=out_f, stderr=err_f, stdin=subprocess.DEVNULL,
                         start_new_session=True)
    deadline = t0 + timeout
    timed_out = False
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            timed_out = True
            os.killpg(p.pid, 9)
            pid, status, ru = os.wait4(p.pid, 0)
            break
        time.sleep(0.002)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, tell Popen
    rc = "timeout" if timed_out else p.returncode
    rss = ru.ru_maxrss
    if use_time:
        try:
            with open(rss_file) as f:
                rss = int(f.read().split()[-1])
        except (OSError, ValueError, IndexError):
            pass  # killed: keep the wait4 figure
    out_f.seek(0)
    err_f.seek(0)
    so = out_f.read().decode(errors="replace")
    se = err_f.read().decode(errors="replace")
    out_f.close()
    err_f.close()
    return rc, wall, rss, so, se, ru.ru_utime + ru.ru_stime


def one_line(rc, stdout, stderr):
    """The failure's one-line message: a Python exception line, else the first
    'error:' line (our CLI), else the last line."""
    import re

    lines = [l.strip() for l in (stderr + "\n" + stdout).splitlines() if l.strip()]
    exc = [l for l in lines if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt)\b.*", l)]
    if exc:
        return exc[-1][:2000]
    for l in lines:
        if "error:" in l.lower():
            return l[:2000]
    if lines:
        return lines[-1][:2000]
    return "exit status %s" % rc


def _varint(buf, pos):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _fields(buf, start, end):
    """Yield (field_number, wire_type, value_or_(start,end)) of a protobuf message."""
    pos = start
    while pos < end:
        key, pos = _varint(buf, pos)
        fn, wt = key >> 3, key & 7
        if wt == 0:
            v, pos = _varint(buf, pos)
            yield fn, wt, v
        elif wt == 1:
            pos += 8
        elif wt == 2:
            n, pos = _varint(buf, pos)
            yield fn, wt, (pos, pos + n)
            pos += n
        elif wt == 5:
            pos += 4
        else:
            raise ValueError("bad wire type %d at %d" % (wt, pos))


def _count_graph(buf, start, end, ops=None):
    """(top-level nodes, nodes including subgraphs) of an onnx GraphProto;
    fills ops (op_type -> count) for the top level when given."""
    top = total = 0
    for fn, wt, v in _fields(buf, start, end):
        if fn == 1 and wt == 2:  # GraphProto.node
            top += 1
            total += 1
            for nfn, nwt, nv in _fields(buf, *v):
                if nfn == 4 and nwt == 2 and ops is not None:  # NodeProto.op_type
                    k = bytes(buf[nv[0]:nv[1]]).decode()
                    ops[k] = ops.get(k, 0) + 1
                elif nfn == 5 and nwt == 2:  # NodeProto.attribute
                    for afn, awt, av in _fields(buf, *nv):
                        if awt == 2 and afn in (6, 11):  # AttributeProto.g / graphs
                            total += _count_graph(buf, *av)[1]
    return top, total


def onnx_node_count(path):
    """(top-level nodes, nodes incl. subgraphs, {op_type: count}) read with a
    protobuf-free reader (the onnx package is not installed for /usr/bin/python3)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            return None
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            for fn, wt, v in _fields(buf, 0, size):
                if fn == 7 and wt == 2:  # ModelProto.graph
                    ops = {}
                    top, total = _count_graph(buf, v[0], v[1], ops)
                    return top, total, dict(sorted(ops.items()))
    return None


def dir_bytes(d):
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))


def fresh_dir(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


# --------------------------------------------------------------------------


def ensure_built(name, a, log):
    """(WORK/NAME.pt, its meta dict), building and tracing it in a child first if needed; (None, error)
    when that fails."""
    pt = os.path.join(a.work_dir, name + ".pt")
    meta_path = os.path.join(a.work_dir, name + ".json")
    if a.rebuild or not (os.path.exists(pt) and os.path.exists(meta_path)):
        log("[%s] building and tracing ..." % name)
        r = subprocess.run([PY, os.path.abspath(__file__), "--_build", name, pt, meta_path])
        if r.returncode != 0:
            return None, "build of %s failed (exit %d)" % (name, r.returncode)
    with open(meta_path) as f:
        return pt, json.load(f)


def ensure_built_pt2(name, a, log):
    """(PT2_DIR/NAME.pt2, its meta dict), exporting and saving it in the PyTorch 2.14 root first if needed
    (T2O_TORCH2X_SUITE=sid scripts/torch2x_env.sh run); (None, error) when that fails."""
    os.makedirs(a.pt2_dir, exist_ok=True)
    pt2 = os.path.join(a.pt2_dir, name + ".pt2")
    meta_path = os.path.join(a.pt2_dir, name + ".json")
    if a.rebuild or not (os.path.exists(pt2) and os.path.exists(meta_path)):
        log("[%s.pt2] exporting with torch.export in the PyTorch 2.14 root ..." % name)
        env = dict(os.environ, T2O_TORCH2X_SUITE="sid")
        r = subprocess.run(["bash", os.path.join(REPO, "scripts", "torch2x_env.sh"), "run", "-o", a.pt2_dir,
                            os.path.abspath(__file__), "--_build_pt2", name, pt2, meta_path], env=env)
        if r.returncode != 0 or not os.path.exists(pt2):
            return None, "torch.export of %s in the PyTorch 2.14 root failed (exit %d)" % (name, r.returncode)
    with open(meta_path) as f:
        return pt2, json.load(f)


def ours_options(a):
    """The options every one of our runs gets besides the model's own."""
    opts = []
    if a.opset != 17:
        opts += ["--opset", str(a.opset)]
    for d in a.plugin_path:
        opts += ["--plugin-path", d]
    return opts + ["-q"]


def ours_cmd(a, pt, out, specs):
    cmd = [a.cli, "export", pt, "-o", out]
    for s in specs:
        cmd += ["--input", s]
    return cmd + ours_options(a)


def export_seconds(stdout):
    """embed_export --time's "export_seconds: S" line, or None."""
    for l in stdout.splitlines():
        if l.startswith("export_seconds: "):
            return float(l.split()[1])
    return None


def embed_runs(cmd, a, out_dir, log_prefix, report, before=None):
    """N fresh embed_export processes: (their export_seconds, their peak RSS KiB, the first failure or None).
    before() is called before each (a copy floor sample)."""
    times, rss_kib = [], []
    for i in range(a.repeat):
        fresh_dir(out_dir)
        if before:
            before()
        rc, wall, rss, so, se, cpu = run_measured(cmd, log_prefix, a.timeout)
        t = export_seconds(so)
        if rc != 0 or t is None:
            return times, rss_kib, one_line(rc, so, se)
        times.append(t)
        rss_kib.append(rss)
        report(i, t, wall, rss)
    return times, rss_kib, None


def bench_model(row, a, log):
    # A .pt2 row (NAME.pt2): the program saved by torch.export, given to our CLI without --input (it
    # records its signature); embed_export needs --input, which names the same shapes.
    pt2 = row.endswith(PT2_SUFFIX)
    name = row[: -len(PT2_SUFFIX)] if pt2 else row
    specs = MODELS[name][0]
    cli_specs = [] if pt2 else specs
    wd = a.work_dir
    logs = os.path.join(wd, "logs")
    os.makedirs(logs, exist_ok=True)

    pt, meta = ensure_built_pt2(name, a, log) if pt2 else ensure_built(name, a, log)
    if pt is None:
        return {"model": row, "error": meta}
    res = {"model": row, "inputs": specs, "opset": a.opset, "repeat": a.repeat,
           "param_bytes": meta["param_bytes"], "buffer_bytes": meta["buffer_bytes"],
           "pt_bytes": os.path.getsize(pt), "saved_by_torch": meta.get("torch")}
    name = row  # logs, output folders and messages by row

    # (c) floor: copy the .pt bytes, after one warm read. On a VM the same copy takes 1 s or 9 s from one
    # minute to the next (how recently the host freed the pages it writes into), so besides N samples up
    # front, a sample is taken right before each of our CLI and library runs, under the same conditions:
    # copy_floor_s is the best of all of them, and each of our runs is also reported against the sample
    # taken just before it.
    with open(pt, "rb") as f:
        while f.read(1 << 24):
            pass
    dst = os.path.join(wd, "copy_floor.tmp")
    floors = []

    def floor_sample():
        settle()
        t0 = time.perf_counter()
        shutil.copyfile(pt, dst)
        floors.append(time.perf_counter() - t0)
        os.remove(dst)
        return floors[-1]

    for _ in range(a.repeat):
        floor_sample()
    log("[%s] copy floor %.4f s (best of %s s)" % (name, min(floors), ", ".join("%.3f" % f for f in floors)))
    res["copy_floor_samples"] = floors

    # (a) ours
    if not a.skip_ours:
        od = os.path.join(wd, "out", "ours", name)
        ours = {"cmd": None, "ok": False, "times": [], "rss_kib": []}
        cmd = ours_cmd(a, pt, os.path.join(od, "model.onnx"), cli_specs)
        ours["cmd"] = " ".join(cmd)
        if not os.access(a.cli, os.X_OK):
            ours["error"] = "CLI not found: " + a.cli
        for i in range(a.repeat if "error" not in ours else 0):
            fresh_dir(od)
            ours.setdefault("floor_before", []).append(floor_sample())
            rc, wall, rss, so, se, cpu = run_measured(cmd, os.path.join(logs, name + ".ours"), a.timeout)
            out = os.path.join(od, "model.onnx")
            if rc != 0 or not os.path.exists(out):
                ours["error"] = one_line(rc, so, se)
                ours["rc"] = rc
                ours["rss_kib"].append(rss)
                ours["fail_time_s"] = wall
                log("[%s] ours FAILED (%.2f s): %s" % (name, wall, ours["error"]))
                break
            ours["times"].append(wall)
            ours.setdefault("cpu_times", []).append(cpu)
            ours["rss_kib"].append(rss)
            log("[%s] ours run %d: %.3f s, %.0f MiB (copy floor just before: %.3f s)"
                % (name, i + 1, wall, rss / 1024.0, ours["floor_before"][-1]))
        if ours["times"] and "error" not in ours:
            ours["ok"] = True
            ours["best_s"] = min(ours["times"])
            ours["best_cpu_s"] = min(ours["cpu_times"])
            ours["out_bytes"] = dir_bytes(od)
            try:
                ours["nodes"], ours["nodes_incl_subgraphs"], ours["op_types"] = onnx_node_count(os.path.join(od, "model.onnx"))
            except Exception as e:  # a malformed file is worth knowing about
                ours["nodes_error"] = str(e)
        ours["peak_rss_kib"] = max(ours["rss_kib"]) if ours["rss_kib"] else None
        res["ours"] = ours

    # (a') ours in-process: the library call alone (torch2onnx/torch2onnx.hpp's export_module), timed inside
    # a C++ process that has already loaded libtorch, the packs and the model (examples/embed's program,
    # built in the tree as build/bin/embed_export), like theirs' export_s; best of N fresh processes.
    if not a.skip_ours and not a.skip_inproc:
        od = os.path.join(wd, "out", "inproc", name)
        ip = {"ok": False, "times": []}
        cmd = [a.embed, pt, os.path.join(od, "model.onnx"), "--time", "--opset", str(a.opset)]
        for s_ in specs:
            cmd += ["--input", s_]
        ip["cmd"] = " ".join(cmd)
        if not os.access(a.embed, os.X_OK):
            ip["error"] = "embed_export not found: " + a.embed
        if "error" not in ip and not pt2:  # (a .pt2 is no module torch::jit::load reads: the file only)
            ip["times"], _, err = embed_runs(cmd, a, od, os.path.join(logs, name + ".inproc"),
                                             lambda i, t, wall, rss: log("[%s] ours in-process run %d: export %.3f s "
                                                                         "(process %.3f s)" % (name, i + 1, t, wall)))
            if err:
                ip["error"] = err
                log("[%s] ours in-process FAILED: %s" % (name, err))
        if ip["times"] and "error" not in ip:
            ip["ok"] = True
            ip["best_s"] = min(ip["times"])
        # The library given the file (export_model: its load included, lazy weights as the library's
        # default): time of the call and the process's peak RSS.
        ip["file_times"], ip["file_rss_kib"] = [], []
        if "error" not in ip:
            ip["file_floor_before"] = []
            ip["file_times"], ip["file_rss_kib"], err = embed_runs(
                cmd + ["--file"], a, od, os.path.join(logs, name + ".library"),
                lambda i, t, wall, rss: log("[%s] ours library (file) run %d: export_model %.3f s, %.0f MiB "
                                            "(copy floor just before: %.3f s)"
                                            % (name, i + 1, t, rss / 1024.0, ip["file_floor_before"][i])),
                before=lambda: ip["file_floor_before"].append(floor_sample()))
            if err:
                ip["file_error"] = err
                log("[%s] ours library (file) FAILED: %s" % (name, err))
        if ip["file_times"] and "file_error" not in ip:
            ip["file_best_s"] = min(ip["file_times"])
            ip["file_peak_rss_kib"] = max(ip["file_rss_kib"])
        res["ours_inproc"] = ip

    # Ours against the copy floor, for a model whose weights are most of the work (over 1 GiB): best
    # against best (of every sample), and each run against the sample taken just before it (their median).
    res["copy_floor_s"] = min(floors)
    for label, times, before in (("CLI", res.get("ours", {}).get("times"), res.get("ours", {}).get("floor_before")),
                                 ("library", res.get("ours_inproc", {}).get("file_times"),
                                  res.get("ours_inproc", {}).get("file_floor_before"))):
        if not times or res["pt_bytes"] < (1 << 30):
            continue
        pairs = sorted(t / f for t, f in zip(times, before))
        res.setdefault("vs_copy_floor", {})[label] = {"best": min(times) / min(floors),
                                                      "paired_median": pairs[len(pairs) // 2]}
        log("[%s] %s vs copy floor: best %.3f / %.3f s = %.2fx; each run against the floor just before it: %s"
            % (name, label, min(times), min(floors), min(times) / min(floors), ", ".join("%.2fx" % p for p in pairs)))

    # (b) theirs (a .pt2 row: the TorchScript row's torch.onnx.export stands for it, see PT2_MODELS)
    if not a.skip_theirs and not pt2:
        td = os.path.join(wd, "out", "theirs", name)
        th = {"ok": False, "times": [], "export_times": [], "load_times": [], "rss_kib": []}
        for i in range(a.repeat):
            fresh_dir(td)
            out = os.path.join(td, "model.onnx")
            err, wall, rep, rss = theirs_run(a, pt, out, specs, os.path.join(logs, name + ".theirs"))
            if err is not None:
                th["error"] = err
                log("[%s] theirs FAILED: %s" % (name, th["error"]))
                break
            th["times"].append(wall)
            th["export_times"].append(rep["export_s"])
            th["load_times"].append(rep["load_s"])
            th["rss_kib"].append(rss)
            log("[%s] theirs run %d: export %.3f s, process %.3f s, %.0f MiB"
                % (name, i + 1, rep["export_s"], wall, rss / 1024.0))
        if th["times"] and "error" not in th:
            th["ok"] = True
            th["best_s"] = min(th["times"])
            th["best_export_s"] = min(th["export_times"])
            th["out_bytes"] = dir_bytes(td)
            try:
                th["nodes"], th["nodes_incl_subgraphs"], th["op_types"] = onnx_node_count(out)
            except Exception as e:
                th["nodes_error"] = str(e)
        th["peak_rss_kib"] = max(th["rss_kib"]) if th["rss_kib"] else None
        res["theirs"] = th

    if not a.keep_outputs:
        shutil.rmtree(os.path.join(wd, "out"), ignore_errors=True)
    return res


def theirs_run(a, pt, out, specs, log_prefix):
    """One torch.onnx.export child: (error or None, process wall s, its report (export_s, load_s),
    peak RSS KiB)."""
    cmd = [PY, os.path.abspath(__file__), "--_theirs", pt, out, str(a.opset), json.dumps(specs)]
    rc, wall, rss, so, se, _ = run_measured(cmd, log_prefix, a.timeout)
    rep = None
    for l in reversed(so.splitlines()):
        if l.startswith("{"):
            rep = json.loads(l)
            break
    if rc != 0 or rep is None or not os.path.exists(out):
        return one_line(rc, so, se), wall, None, rss
    return None, wall, rep, rss


def bench_batch(a, log):
    """The batch row: BATCH_MODELS converted (1) by one `torch2onnx export --batch` process, best of N
    whole runs; (2) by one torch2onnx process per model and (3) by one torch.onnx.export process per
    model, each model's best of N, summed (theirs: the whole processes, and their export calls alone)."""
    wd = a.work_dir
    logs = os.path.join(wd, "logs")
    os.makedirs(logs, exist_ok=True)
    res = {"models": list(BATCH_MODELS), "opset": a.opset, "repeat": a.repeat}
    pts, param_bytes = {}, 0
    for name in BATCH_MODELS:
        pt, meta = ensure_built(name, a, log)
        if pt is None:
            res["error"] = meta
            return res
        pts[name] = pt
        param_bytes += meta["param_bytes"]
    res["param_bytes"] = param_bytes

    if not a.skip_ours:
        # (1) one process: a batch file of "MODEL.pt -o OUT.onnx --input SPEC" lines (shell quoting).
        one_dir = os.path.join(wd, "out", "batch", "one")
        jobs = os.path.join(wd, "batch_jobs.txt")
        with open(jobs, "w") as f:
            for name in BATCH_MODELS:
                words = [pts[name], "-o", os.path.join(one_dir, name + ".onnx")]
                for spec in MODELS[name][0]:
                    words += ["--input", spec]
                f.write(" ".join(shlex.quote(w) for w in words) + "\n")
        cmd = [a.cli, "export", "--batch", jobs] + ours_options(a)
        one = {"cmd": " ".join(cmd), "ok": False, "times": [], "cpu_times": [], "rss_kib": []}
        for i in range(a.repeat):
            fresh_dir(one_dir)
            rc, wall, rss, so, se, cpu = run_measured(cmd, os.path.join(logs, "batch.ours"), a.timeout)
            missing = [n for n in BATCH_MODELS if not os.path.exists(os.path.join(one_dir, n + ".onnx"))]
            if rc != 0 or missing:
                one["error"] = one_line(rc, so, se) if rc != 0 else "no output for " + ", ".join(missing)
                log("[batch] ours one process FAILED (%.2f s): %s" % (wall, one["error"]))
                break
            one["times"].append(wall)
            one["cpu_times"].append(cpu)
            one["rss_kib"].append(rss)
            log("[batch] ours one process, run %d: %.3f s for %d models, %.0f MiB"
                % (i + 1, wall, len(BATCH_MODELS), rss / 1024.0))
        if one["times"] and "error" not in one:
            one.update(ok=True, best_s=min(one["times"]), best_cpu_s=min(one["cpu_times"]),
                       peak_rss_kib=max(one["rss_kib"]))
        res["ours_batch"] = one

        # (2) one process per model, as the model rows run ours.
        each_dir = os.path.join(wd, "out", "batch", "each")
        fresh_dir(each_dir)
        each = {"ok": False, "best_s": {}}
        for name in BATCH_MODELS:
            out = os.path.join(each_dir, name + ".onnx")
            for i in range(a.repeat):
                rc, wall, rss, so, se, cpu = run_measured(ours_cmd(a, pts[name], out, MODELS[name][0]),
                                                          os.path.join(logs, "batch.ours_each"), a.timeout)
                if rc != 0 or not os.path.exists(out):
                    each["error"] = name + ": " + one_line(rc, so, se)
                    break
                each["best_s"][name] = min(wall, each["best_s"].get(name, wall))
            if "error" in each:
                log("[batch] ours per process FAILED: %s" % each["error"])
                break
            log("[batch] ours process for %s: %.3f s" % (name, each["best_s"][name]))
        if "error" not in each:
            each.update(ok=True, total_s=sum(each["best_s"].values()))
            # The same models, so the same bytes: a batch only shares the start-up.
            if one.get("ok"):
                res["same_bytes"] = all(filecmp.cmp(os.path.join(one_dir, n + ".onnx"), os.path.join(each_dir, n + ".onnx"),
                                                    shallow=False) for n in BATCH_MODELS)
        res["ours_each"] = each

    if not a.skip_theirs:
        # (3) one torch.onnx.export process per model.
        th_dir = os.path.join(wd, "out", "batch", "theirs")
        fresh_dir(th_dir)
        th = {"ok": False, "best_s": {}, "best_export_s": {}}
        for name in BATCH_MODELS:
            out = os.path.join(th_dir, name + ".onnx")
            for i in range(a.repeat):
                err, wall, rep, _ = theirs_run(a, pts[name], out, MODELS[name][0],
                                               os.path.join(logs, "batch.theirs"))
                if err:
                    th["error"] = name + ": " + err
                    break
                export_s = rep["export_s"]
                th["best_s"][name] = min(wall, th["best_s"].get(name, wall))
                th["best_export_s"][name] = min(export_s, th["best_export_s"].get(name, export_s))
            if "error" in th:
                log("[batch] theirs FAILED: %s" % th["error"])
                break
            log("[batch] theirs process for %s: %.3f s (export %.3f s)"
                % (name, th["best_s"][name], th["best_export_s"][name]))
        if "error" not in th:
            th.update(ok=True, total_s=sum(th["best_s"].values()), total_export_s=sum(th["best_export_s"].values()))
        res["theirs"] = th

    if not a.keep_outputs:
        shutil.rmtree(os.path.join(wd, "out"), ignore_errors=True)
    return res


BATCH_HEAD = ["batch", "weights MiB", "ours one process s", "ours CPU s", "ours processes s", "theirs processes s",
              "theirs export calls s", "vs ours processes", "vs theirs processes", "ours RSS MiB", "same bytes", "note"]


def bench_detection(name, a, log):
    """One detector: ours (the whole `torch2onnx export` process) and torch.onnx.export (the call, and
    its whole process) with the fixture's dynamic axes, each the best of N runs of
    compare_with_torch_onnx.py (without ONNX Runtime: the detection tests check the outputs)."""
    det_dir = os.path.join(a.work_dir, "detection")
    fixture = os.path.join(det_dir, name)
    os.makedirs(det_dir, exist_ok=True)
    if a.rebuild or not os.path.exists(os.path.join(fixture, "model.pt")):
        log("[%s] building and tracing ..." % name)
        r = subprocess.run([PY, os.path.join(REPO, "tests", "detection", "make_detection_fixtures.py"), det_dir, name],
                           capture_output=True, text=True, timeout=a.timeout)
        if r.returncode != 0:
            return {"model": name, "error": one_line(r.returncode, r.stdout, r.stderr)}
    res = {"model": name, "opset": a.opset, "runs": []}
    for i in range(a.repeat):
        out = os.path.join(a.work_dir, "logs", name + ".detection.json")
        r = subprocess.run([PY, os.path.join(REPO, "tests", "detection", "compare_with_torch_onnx.py"), det_dir, a.cli,
                            name, "--opsets", str(a.opset), "--skip-ort", "--json", out,
                            "--out-dir", os.path.join(a.work_dir, "out", "detection")],
                           capture_output=True, text=True, timeout=a.timeout)
        if r.returncode != 0:
            res["error"] = one_line(r.returncode, r.stdout, r.stderr)
            break
        with open(out) as f:
            row = json.load(f)[0]
        res["runs"].append(row)
        o, t = row["ours"], row["theirs"]
        log("[%s] run %d: ours %.2f s (CPU %.2f s, %.0f MiB); torch.onnx export %s s, process %.2f s"
            % (name, i + 1, o["wall_s"], o["cpu_s"], o["peak_rss_mib"],
               "%.2f" % t["export_s"] if t.get("export_s") is not None else "FAIL", t["process_wall_s"]))
    return res


DETECTION_HEAD = ["detector", "opset", "ours s", "ours CPU s", "ours RSS MiB", "theirs s (export)", "theirs CPU s (export)",
                  "theirs s (process)", "theirs RSS MiB", "ratio", "ours nodes", "theirs nodes", "note"]


def detection_rows(results, note_width=100):
    rows = []
    for r in results:
        runs = r.get("runs", [])
        ours = [x["ours"] for x in runs if x["ours"]["ok"]]
        theirs = [x["theirs"] for x in runs if x["theirs"]["ok"]]
        o_s = min((x["wall_s"] for x in ours), default=None)
        o_cpu = min((x["cpu_s"] for x in ours), default=None)
        t_e = min((x["export_s"] for x in theirs), default=None)
        t_cpu = min((x["export_cpu_s"] for x in theirs), default=None)
        t_p = min((x["process_wall_s"] for x in theirs), default=None)
        notes = [r["error"]] if r.get("error") else []
        notes += ["ours: " + x["ours"]["error"] for x in runs if x["ours"].get("error")][:1]
        notes += ["theirs: " + x["theirs"]["error"] for x in runs if x["theirs"].get("error")][:1]
        ratio = t_e / o_s if (o_s and t_e) else None
        rows.append([r["model"], str(r.get("opset", "-")), fmt(o_s, ".2f"), fmt(o_cpu, ".2f"),
                     fmt(max((x["peak_rss_mib"] for x in ours), default=None), ".0f"), fmt(t_e, ".2f"), fmt(t_cpu, ".2f"),
                     fmt(t_p, ".2f"), fmt(max((x["peak_rss_mib"] for x in theirs), default=None), ".0f"),
                     fmt(ratio, ".1f") + ("x" if ratio else ""),
                     fmt(ours[0].get("nodes") if ours else None, "d"), fmt(theirs[0].get("nodes") if theirs else None, "d"),
                     _short("; ".join(notes), note_width)])
    return rows


def batch_rows(r, note_width=100):
    label = "%d torchvision classification models" % len(r["models"])
    if "error" in r:
        return [[label] + ["-"] * (len(BATCH_HEAD) - 2) + [r["error"]]]
    one, each, th = r.get("ours_batch", {}), r.get("ours_each", {}), r.get("theirs", {})
    one_s, each_s, th_s = one.get("best_s"), each.get("total_s"), th.get("total_s")
    vs_ours = each_s / one_s if (one_s and each_s) else None
    vs_theirs = th_s / one_s if (one_s and th_s) else None
    notes = ["%s: %s" % (k, d["error"]) for k, d in (("ours one process", one), ("ours processes", each), ("theirs", th))
             if d.get("error")]
    return [[
        label,
        fmt(r["param_bytes"] / MiB, ".1f"),
        fmt(one_s, ".3f") if one_s is not None else ("FAIL" if one.get("error") else "-"),
        fmt(one.get("best_cpu_s"), ".3f"),
        fmt(each_s, ".3f") if each_s is not None else ("FAIL" if each.get("error") else "-"),
        fmt(th_s, ".3f") if th_s is not None else ("FAIL" if th.get("error") else "-"),
        fmt(th.get("total_export_s"), ".3f"),
        fmt(vs_ours, ".1f") + ("x" if vs_ours else ""),
        fmt(vs_theirs, ".1f") + ("x" if vs_theirs else ""),
        fmt(one["peak_rss_kib"] / 1024.0 if one.get("peak_rss_kib") else None, ".0f"),
        {True: "yes", False: "NO"}.get(r.get("same_bytes"), "-"),
        _short("; ".join(notes), note_width),
    ]]


HEAD = ["model", "weights MiB", "ours s", "ours CPU s", "ours s (in-process)", "ours s (library, file)", "library RSS MiB", "theirs s (export)",
        "theirs s (process)", "ratio", "in-process ratio", "ours RSS MiB", "theirs RSS MiB", "ours nodes", "theirs nodes", "copy floor s", "note"]


def _short(s, n):
    return s if len(s) <= n else s[: n - 3] + "..."


def table_rows(results, note_width=100):
    rows = []
    for r in results:
        if "error" in r and "param_bytes" not in r:
            rows.append([r["model"]] + ["-"] * (len(HEAD) - 2) + [r["error"]])
            continue
        o, t, ip = r.get("ours", {}), r.get("theirs", {}), r.get("ours_inproc", {})
        ours_s = o.get("best_s")
        ip_s = ip.get("best_s")
        th_e, th_p = t.get("best_export_s"), t.get("best_s")
        ratio = th_e / ours_s if (ours_s and th_e) else None
        ip_ratio = th_e / ip_s if (ip_s and th_e) else None
        notes = []
        if o.get("error"):
            notes.append("ours: " + o["error"])
        if ip.get("error"):
            notes.append("ours in-process: " + ip["error"])
        if ip.get("file_error"):
            notes.append("ours library (file): " + ip["file_error"])
        if t.get("error"):
            notes.append("theirs: " + t["error"])
        if r["model"].endswith(PT2_SUFFIX) and "error" not in r:
            notes.append("saved by torch %s; theirs: see the TorchScript row (torch.onnx's .pt2 path needs onnxscript)"
                         % r.get("saved_by_torch", "?"))
        rows.append([
            r["model"],
            fmt(r["param_bytes"] / MiB, ".1f"),
            fmt(ours_s, ".3f") if ours_s is not None else ("FAIL" if o.get("error") else "-"),
            fmt(o.get("best_cpu_s"), ".3f"),
            fmt(ip_s, ".3f") if ip_s is not None else ("FAIL" if ip.get("error") else "-"),
            fmt(ip.get("file_best_s"), ".3f") if ip.get("file_best_s") is not None else ("FAIL" if ip.get("file_error") else "-"),
            fmt(ip["file_peak_rss_kib"] / 1024.0 if ip.get("file_peak_rss_kib") else None, ".0f"),
            fmt(th_e, ".3f") if th_e is not None else ("FAIL" if t.get("error") else "-"),
            fmt(th_p, ".3f"),
            fmt(ratio, ".1f") + ("x" if ratio else ""),
            fmt(ip_ratio, ".1f") + ("x" if ip_ratio else ""),
            fmt(o["peak_rss_kib"] / 1024.0 if o.get("peak_rss_kib") else None, ".0f"),
            fmt(t["peak_rss_kib"] / 1024.0 if t.get("peak_rss_kib") else None, ".0f"),
            fmt(o.get("nodes"), "d"),
            fmt(t.get("nodes"), "d"),
            fmt(r["copy_floor_s"], ".4f"),
            _short("; ".join(notes), note_width),
        ])
    return rows


def print_table(results, out=sys.stdout, note_width=100, head=HEAD, rows=None):
    rows = [head] + (rows if rows is not None else table_rows(results, note_width))
    w = [max(len(str(row[i])) for row in rows) for i in range(len(head))]
    for k, row in enumerate(rows):
        out.write("| " + " | ".join(str(c).ljust(w[i]) for i, c in enumerate(row)) + " |\n")
        if k == 0:
            out.write("|" + "|".join("-" * (x + 2) for x in w) + "|\n")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--_build":
        return child_build(*sys.argv[2:5])
    if len(sys.argv) > 1 and sys.argv[1] == "--_build_pt2":
        return child_build_pt2(*sys.argv[2:5])
    if len(sys.argv) > 1 and sys.argv[1] == "--_theirs":
        return child_theirs(*sys.argv[2:6])

    ap = argparse.ArgumentParser(description="torch2onnx vs torch.onnx.export benchmark")
    ap.add_argument("--models", default=DEFAULT_MODELS,
                    help="comma list from: " + ",".join(MODELS) + ", batch: the batch row, %d models, and the "
                    "detectors %s (default %%(default)s)" % (len(BATCH_MODELS), ",".join(DETECTION_MODELS)))
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "bin", "torch2onnx"))
    ap.add_argument("--embed", default=os.path.join(REPO, "build", "bin", "embed_export"),
                    help="examples/embed's program (ours in-process column; built as build/bin/embed_export)")
    ap.add_argument("--skip-inproc", action="store_true", help="no ours in-process column")
    ap.add_argument("--plugin-path", action="append", default=[], metavar="DIR",
                    help="passed on to our CLI (repeatable)")
    ap.add_argument("--work-dir", default="/tmp/t2o_bench")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (best time, max RSS)")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--json", metavar="OUT", help="also write results as JSON")
    ap.add_argument("--rebuild", action="store_true", help="re-trace models even if the .pt exists")
    ap.add_argument("--pt2", action="store_true",
                    help="a .pt2 row (torch.export.save in PyTorch 2.14) after each of %s in --models; "
                    "NAME.pt2 in --models adds one too" % ",".join(PT2_MODELS))
    ap.add_argument("--pt2-dir", default=os.path.join(os.path.expanduser("~"), ".cache", "torch2onnx", "bench-pt2"),
                    help="where the .pt2 files are saved once and reused (default %(default)s)")
    ap.add_argument("--skip-ours", action="store_true")
    ap.add_argument("--skip-theirs", action="store_true")
    ap.add_argument("--keep-outputs", action="store_true", help="keep ONNX files under WORK/out")
    ap.add_argument("--note-width", type=int, default=100, help="truncate table notes (JSON has them whole)")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds per child run")
    a = ap.parse_args()

    names = [m.strip() for m in a.models.split(",") if m.strip()]
    batch = "batch" in names
    detectors = [m for m in names if m in DETECTION_MODELS]
    names = [m for m in names if m != "batch" and m not in DETECTION_MODELS]
    if a.pt2:
        names = [r for m in names for r in ([m, m + PT2_SUFFIX] if m in PT2_MODELS and m + PT2_SUFFIX not in names
                                                               else [m])]
    for m in names:
        if m.endswith(PT2_SUFFIX) and m[: -len(PT2_SUFFIX)] in PT2_MODELS:
            continue
        if m not in MODELS:
            ap.error("unknown model %r; choose from %s, or %s" % (m, ",".join(MODELS),
                                                                 ",".join(n + PT2_SUFFIX for n in PT2_MODELS)))
    a.cli = os.path.abspath(a.cli)
    a.embed = os.path.abspath(a.embed)
    a.work_dir = os.path.abspath(a.work_dir)
    a.pt2_dir = os.path.abspath(a.pt2_dir)
    os.makedirs(a.work_dir, exist_ok=True)

    def log(msg):
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()

    log("cli: %s   work dir: %s   opset %d   repeat %d   cores %d"
        % (a.cli, a.work_dir, a.opset, a.repeat, os.cpu_count()))
    results = [bench_model(m, a, log) for m in names]
    batch_result = bench_batch(a, log) if batch else None
    detection_results = [bench_detection(m, a, log) for m in detectors]
    if results:
        print_table(results, note_width=a.note_width)
    if batch_result:
        if results:
            sys.stdout.write("\n")
        print_table(None, head=BATCH_HEAD, rows=batch_rows(batch_result, a.note_width))
    if detection_results:
        if results or batch_result:
            sys.stdout.write("\n")
        print_table(None, head=DETECTION_HEAD, rows=detection_rows(detection_results, a.note_width))
    if a.json:
        report = {"cli": a.cli, "opset": a.opset, "repeat": a.repeat, "cores": os.cpu_count(),
                  "rss_source": "GNU time %M" if os.access(GNU_TIME, os.X_OK) else "wait4 ru_maxrss",
                  "load_avg": os.getloadavg(), "results": results}
        if batch_result:
            report["batch"] = batch_result
        if detection_results:
            report["detection"] = detection_results
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
