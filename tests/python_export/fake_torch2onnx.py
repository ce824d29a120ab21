#!/usr/bin/env python3
"""A stand-in for the torch2onnx program inside a PyTorch 2.x root (tests/python_export/run.sh), where
the host's build of torch2onnx cannot run (another libc, no libtorch 1.13). torch2onnx.export() runs it
as it runs the real program: `fake_torch2onnx.py export MODEL.pt2 -o OUT.onnx [options]`. It copies
MODEL.pt2 and records its argument list in $T2O_PYEXPORT_CAPTURE (model.pt2, argv.json), for the host
half to convert with the real program, and prints one warning line, as the real one prints them.
$T2O_PYEXPORT_FAIL: print it as torch2onnx's error line ("{pt2}" replaced by MODEL.pt2's name, as the
real program starts a model's errors with it) and exit 1 instead."""
import json
import os
import shutil
import sys

fail = os.environ.get("T2O_PYEXPORT_FAIL")
if fail:
    print("torch2onnx: error: " + fail.replace("{pt2}", sys.argv[2]), file=sys.stderr)
    sys.exit(1)
out = os.environ["T2O_PYEXPORT_CAPTURE"]
if len(sys.argv) < 5 or sys.argv[1] != "export" or sys.argv[3] != "-o":
    print("fake_torch2onnx: unexpected arguments " + json.dumps(sys.argv), file=sys.stderr)
    sys.exit(2)
shutil.copyfile(sys.argv[2], os.path.join(out, "model.pt2"))
with open(os.path.join(out, "argv.json"), "w") as f:
    json.dump(sys.argv, f)
print("torch2onnx: wrote " + sys.argv[4] + " (stand-in: nothing written)", file=sys.stderr)
print("torch2onnx: warning: stand-in for torch2onnx: the program was captured", file=sys.stderr)
