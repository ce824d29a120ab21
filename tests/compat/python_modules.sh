#!/usr/bin/env bash
# ctest torch2x.python_modules: torch2onnx's Python modules under PyTorch 2.6 (the Debian 13 root of
# scripts/torch2x_env.sh), then the model they saved loaded by torch2onnx (libtorch 1.13 and the
# compatibility library). Skipped (status 77) where that root has not been built.
#   python_modules.sh REPO TORCH2ONNX PYTHON_DIR
set -u
repo=$1 exe=$2 pydir=$3
root=$(bash "$repo/scripts/torch2x_env.sh" path 2>/dev/null)
if [ -z "$root" ] || [ ! -d "$root/usr/lib/python3/dist-packages/torch" ]; then
  echo "no PyTorch 2.x root (bash scripts/torch2x_env.sh build): skipped"
  exit 77
fi
tmp=$(mktemp -d /tmp/t2o-compat-python.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
bash "$repo/scripts/torch2x_env.sh" run -o "$tmp" "$repo/tests/compat/check_python_modules.py" "$pydir" "$tmp/block.pt" ||
  exit 1
# The saved signature names the inputs: no --input. Loaded and typed: check reports every node as
# converted, or the new ops as ones no pack converts (the symbolics are another matter).
out=$("$exe" check "$tmp/block.pt" 2>&1)
rc=$?
printf '%s\n' "$out"
case "$out" in *"cannot load TorchScript"*) exit 1 ;; esac
[ "$rc" -eq 0 ] || grep -q "no pack converts it" <<<"$out"
