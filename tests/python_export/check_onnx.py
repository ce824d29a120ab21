#!/usr/bin/python3
"""The host half of ctest python_export.torch2.* (run.sh): converts what torch2onnx.export() produced in
a PyTorch 2.x root (make_programs.py) with the real torch2onnx program, through torch2onnx.convert(), the
second half of export(), and compares the ONNX models in ONNX Runtime with PyTorch's outputs.

    TORCH2ONNX=build/bin/torch2onnx /usr/bin/python3 tests/python_export/check_onnx.py WORK NODE

Per case of WORK/index.json: the argument list export() ran (argv.json, captured in the root) is the
one convert() builds from the same options, so the real program gets exactly what export() gives it;
then convert() writes WORK/CASE/model.onnx and
  model:   tests/ort/compare.js at the example sizes and at each sizes<k>/;
  warning: the program's warning is an ExportWarning at this file's line (the model is written);
  error:   one ExportError, its message torch2onnx's line without its prefix, naming the op and the
           user's source line.
Also: a bad opset is an ExportError (status 2); the program is found beside the package in an installed
layout (<prefix>/lib/python3/dist-packages/torch2onnx, <prefix>/bin/torch2onnx) with neither
TORCH2ONNX nor PATH, the torch2onnx= argument wins over TORCH2ONNX, and a TORCH2ONNX naming nothing is
an ExportError. Needs no torch.export: runs under the host's PyTorch 1.13."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
import torch2onnx  # noqa: E402
from torch2onnx import _export  # noqa: E402

WORK, NODE = os.path.abspath(sys.argv[1]), sys.argv[2]
COMPARE = os.path.join(REPO, "tests", "ort", "compare.js")
EXE = os.environ["TORCH2ONNX"]
failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def compare(model, d, what):
    r = subprocess.run([NODE, COMPARE, model, d], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=dict(os.environ, T2O_ORT_THREADS="1"))
    expect(r.returncode == 0, f"{what}: ONNX Runtime matches PyTorch" + ("" if r.returncode == 0 else "\n" + r.stdout))


def convert(case, d):
    """convert() of the captured .pt2 with the options export() had; (error, ExportWarnings)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            torch2onnx.convert(os.path.join(d, "model.pt2"), os.path.join(d, "model.onnx"), **case["options"])
            error = None
        except torch2onnx.ExportError as e:
            error = e
    return error, [w for w in seen if issubclass(w.category, torch2onnx.ExportWarning)]


with open(os.path.join(WORK, "index.json")) as f:
    index = json.load(f)
print(f"programs written by PyTorch {index['torch']}")
expect(not index["failures"], "the root's checks passed")
for case in index["cases"]:
    name, d = case["name"], os.path.join(WORK, case["name"])
    with open(os.path.join(d, "argv.json")) as f:
        argv = json.load(f)
    built = _export._command(argv[0], argv[2], argv[4], **case["options"])
    expect(argv == built, f"{name}: export() ran {argv[1:]}, what convert() runs ({built[1:]})")
    error, seen = convert(case, d)
    if case["kind"] == "error":
        msg = str(error) if error is not None else ""
        expect(error is not None and error.returncode == 1 and "\n" not in msg and not msg.startswith("torch2onnx:")
               and all(t in msg for t in case["expect_error"]),
               f"{name}: one ExportError line naming {case['expect_error']}: {msg}")
        expect(not os.path.exists(os.path.join(d, "model.onnx")), f"{name}: no ONNX file written")
        try:  # as export() runs it: the name of its temporary .pt2 left out of the line
            _export._convert(os.path.join(d, "model.pt2"), os.path.join(d, "model.onnx"), 1, hide_pt2=True,
                             **case["options"])
        except torch2onnx.ExportError as e:
            expect(msg.endswith(str(e)) and str(e).startswith("the program calls"),
                   f"{name}: from export(), the line without the temporary .pt2's name: {e}")
        continue
    expect(error is None, f"{name}: converted" + (f" (ExportError: {error})" if error else ""))
    if error is not None:
        continue
    if case["kind"] == "warning":
        expect(any(case["expect_warning"] in str(w.message) and os.path.abspath(w.filename) == os.path.abspath(__file__)
                   for w in seen), f"{name}: an ExportWarning naming {case['expect_warning']} at the caller's line "
               f"({[str(w.message) for w in seen]})")
        expect(os.path.isfile(os.path.join(d, "model.onnx")), f"{name}: the ONNX file written")
        continue
    for w in seen:
        print(f"     (warning: {w.message})")
    if case.get("external_data"):
        expect(os.path.isfile(os.path.join(d, "model.onnx.data")), f"{name}: weights in model.onnx.data")
    compare(os.path.join(d, "model.onnx"), d, name)
    for k in range(1, case["sizes"] + 1):
        compare(os.path.join(d, "model.onnx"), os.path.join(d, f"sizes{k}"), f"{name} at sizes{k}")

# A bad opset: torch2onnx's usage error, one line.
pt2 = os.path.join(WORK, "static_cnn", "model.pt2")
out = os.path.join(WORK, "bad_opset.onnx")
try:
    torch2onnx.convert(pt2, out, opset_version=99)
    expect(False, "opset_version=99 raises ExportError")
except torch2onnx.ExportError as e:
    expect(str(e) == "--opset 99 is out of range: supported opsets are 9 to 26" and e.returncode == 2,
           f"opset_version=99: ExportError '{e}' (status {e.returncode})")

# The program beside an installed package, found with neither TORCH2ONNX nor PATH.
with tempfile.TemporaryDirectory(dir=WORK) as prefix:
    site = os.path.join(prefix, "lib", "python3", "dist-packages", "torch2onnx")
    os.makedirs(site)
    for py in ("__init__.py", "_export.py"):
        shutil.copy(os.path.join(REPO, "python", "torch2onnx", py), site)
    os.makedirs(os.path.join(prefix, "bin"))
    launcher = os.path.join(prefix, "bin", "torch2onnx")
    with open(launcher, "w") as f:
        f.write(f"#!/bin/sh\nexec '{EXE}' \"$@\"\n")
    os.chmod(launcher, 0o755)
    env = {k: v for k, v in os.environ.items() if k != "TORCH2ONNX"}
    env.update(PYTHONPATH=os.path.dirname(site), PATH="/usr/bin:/bin")
    code = ("import sys, torch2onnx; assert torch2onnx.__file__.startswith(sys.argv[1]), torch2onnx.__file__; "
            "print(torch2onnx.find_torch2onnx()); torch2onnx.convert(sys.argv[2], sys.argv[3])")
    installed_out = os.path.join(prefix, "m.onnx")
    r = subprocess.run([sys.executable, "-c", code, site, pt2, installed_out], env=env, cwd=prefix,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    expect(r.returncode == 0 and r.stdout.strip() == launcher and os.path.isfile(installed_out),
           f"installed layout: the program beside the package ({r.stdout.strip()}) {r.stderr.strip()[-300:]}")

# torch2onnx= wins over TORCH2ONNX; a TORCH2ONNX that names nothing is an ExportError.
saved = os.environ["TORCH2ONNX"]
os.environ["TORCH2ONNX"] = os.path.join(WORK, "no-such-program")
expect(torch2onnx.find_torch2onnx(saved) == saved, "torch2onnx= wins over TORCH2ONNX")
try:
    torch2onnx.convert(pt2, out)
    expect(False, "a TORCH2ONNX naming nothing raises ExportError")
except torch2onnx.ExportError as e:
    expect(str(e).startswith("TORCH2ONNX=") and "no-such-program" in str(e), f"TORCH2ONNX naming nothing: {e}")
os.environ["TORCH2ONNX"] = saved

# The class form of export_modules_as_functions, as torch.typename names classes.
cmd = _export._command("t", "a.pt2", "b.onnx", export_modules_as_functions={torch2onnx.ExportError, ValueError})
expect(cmd[-1] == "--export-modules-as-functions=builtins.ValueError,torch2onnx._export.ExportError",
       f"export_modules_as_functions as classes: {cmd[-1]}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
