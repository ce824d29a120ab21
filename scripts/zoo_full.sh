#!/usr/bin/env bash
# The whole model zoo (torchvision 0.14 classification + segmentation, random weights) at each
# model's native resolution: generate the fixture (tests/zoo/make_zoo_fixtures.py --full), export at
# opset 17 with torch2onnx, run in ONNX Runtime (tests/ort/compare.js) and compare with PyTorch at
# rtol 2e-3. The test suite (label `zoo`) runs a subset at small resolutions; this runs them all.
#
#   scripts/zoo_full.sh [--ci-size] [--opset N] [MODEL...]     (default: every model)
#
# Environment: T2O_CLI (default: build/torch2onnx or torch2onnx on PATH), T2O_PYTHON
# (/usr/bin/python3), T2O_FIXTURE_THREADS and T2O_ORT_THREADS (default 2), T2O_ZOO_DIR (work directory, default /tmp/t2o_zoo), TORCH2ONNX_PLUGIN_PATH.
# Prints one line per model (PASS/FAIL, seconds) and a closing 'N passed, N failed' line; exits 1 if
# any model failed. Logs of failures: $T2O_ZOO_DIR/logs/MODEL.log. Takes several hours on 2 cores.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${T2O_PYTHON:-/usr/bin/python3}
WORK=${T2O_ZOO_DIR:-/tmp/t2o_zoo}
CLI=${T2O_CLI:-}
if [ -z "$CLI" ]; then
  if [ -x "$ROOT/build/torch2onnx" ]; then CLI=$ROOT/build/torch2onnx; else CLI=torch2onnx; fi
fi
FULL=--full
SUFFIX=_full
OPSET=17
MODELS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --ci-size) FULL=""; SUFFIX="" ;;
    --opset) OPSET=$2; shift ;;
    -h|--help) sed -n 2,12p "$0"; exit 0 ;;
    *) MODELS+=("$1") ;;
  esac
  shift
done
if [ ${#MODELS[@]} -eq 0 ]; then
  mapfile -t MODELS < <("$PY" "$ROOT/tests/zoo/make_zoo_fixtures.py" --list)
fi
# One model at a time: let torch and ONNX Runtime use both cores.
export T2O_FIXTURE_THREADS=${T2O_FIXTURE_THREADS:-2} T2O_ORT_THREADS=${T2O_ORT_THREADS:-2}
mkdir -p "$WORK/fixtures" "$WORK/out" "$WORK/logs"
pass=0; fail=0; failed=()
start_all=$(date +%s)
for m in "${MODELS[@]}"; do
  t0=$(date +%s)
  log=$WORK/logs/$m$SUFFIX.opset$OPSET.log
  onnx=$WORK/out/$m$SUFFIX.opset$OPSET.onnx
  fix=$WORK/fixtures/$m$SUFFIX
  status=PASS
  (
    "$PY" "$ROOT/tests/zoo/make_zoo_fixtures.py" "$WORK/fixtures" "$m" $FULL || exit 11
    mapfile -t specs < <("$PY" -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["cli_inputs"]))' "$fix/meta.json")
    args=()
    for s in "${specs[@]}"; do args+=(--input "$s"); done
    "$CLI" export "$fix/model.pt" -o "$onnx" --opset "$OPSET" -q "${args[@]}" || exit 12
    node "$ROOT/tests/ort/compare.js" "$onnx" "$fix" || exit 13
  ) > "$log" 2>&1
  rc=$?
  case $rc in
    0) ;;
    11) status="FAIL (fixture)" ;;
    12) status="FAIL (export)" ;;
    13) status="FAIL (compare)" ;;
    *) status="FAIL ($rc)" ;;
  esac
  # Keep the disk free: the ONNX files of the big models are GBs.
  rm -f "$onnx" "$onnx.data"
  t1=$(date +%s)
  if [ "$status" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("$m"); fi
  printf '%-32s %-16s %5ss\n' "$m" "$status" "$((t1 - t0))"
done
echo "total: $(( $(date +%s) - start_all ))s"
[ $fail -eq 0 ] || echo "failed: ${failed[*]} (logs in $WORK/logs)"
echo "zoo: $pass passed, $fail failed"
[ $fail -eq 0 ]
