#!/usr/bin/env bash
# ctest python_export.torch2.6 / python_export.torch2.14: torch2onnx.export() (python/torch2onnx/_export.py)
# under a PyTorch 2.x of scripts/torch2x_env.sh, then its programs converted by the real torch2onnx on
# the host and compared in ONNX Runtime. Skipped (status 77) where that root has not been built.
#   run.sh SUITE REPO TORCH2ONNX PYTHON NODE WORK_PARENT
# SUITE: trixie (PyTorch 2.6) or sid (2.14). The host's torch2onnx cannot run inside the root (another
# libc, no libtorch 1.13): there export() runs a stand-in (fake_torch2onnx.py) that captures the .pt2
# and the arguments into a private directory under WORK_PARENT (bound into the root); the host half
# (check_onnx.py, the host's Python) converts them through torch2onnx.convert() with the real program.
set -u
suite=$1 repo=$2 exe=$3 python=$4 node=$5 parent=$6
root=$(T2O_TORCH2X_SUITE=$suite bash "$repo/scripts/torch2x_env.sh" path 2>/dev/null)
if [ -z "$root" ] || [ ! -d "$root/usr/lib/python3/dist-packages/torch" ] || [ ! -f "$root/.t2o-debootstrap-done" ]; then
  echo "no PyTorch 2.x root for $suite (T2O_TORCH2X_SUITE=$suite bash scripts/torch2x_env.sh build): skipped"
  exit 77
fi
mkdir -p "$parent" || exit 1
work=$(mktemp -d "$parent/run.XXXXXX") || exit 1
work=$(cd "$work" && pwd -P)
trap 'rm -rf "$work"' EXIT
echo "== torch2onnx.export() in the $suite root"
T2O_TORCH2X_SUITE=$suite bash "$repo/scripts/torch2x_env.sh" run -o "$work" \
  "$repo/tests/python_export/make_programs.py" "$work" || exit 1
echo "== converted on the host by $exe"
TORCH2ONNX=$exe "$python" "$repo/tests/python_export/check_onnx.py" "$work" "$node"
