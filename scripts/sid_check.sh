#!/usr/bin/env bash
# Builds torch2onnx against a current libtorch and tests it there: Debian sid's libtorch 2.14, ONNX
# 1.20 and protobuf, as C++20, in a Debian sid root made by scripts/torch2x_env.sh
# (T2O_TORCH2X_SUITE=sid; the root lives outside the repository, the build directory too). The
# Debian 12 build (build/, libtorch 1.13, ONNX 1.12, C++17) is not touched.
#
#   bash scripts/sid_check.sh                  configure, build everything, export examples/tiny_cnn and
#                                              run it in ONNX Runtime, run the --quick set (labels unit|quick)
#   bash scripts/sid_check.sh --full           the same, then every test (as scripts/test.sh)
#   bash scripts/sid_check.sh --build-only     configure, build everything, export examples/tiny_cnn
#   bash scripts/sid_check.sh --targets "T..." build only these targets (e.g. "torch2onnx t2o_plugins"),
#                                              export examples/tiny_cnn, no tests
#   bash scripts/sid_check.sh -- CTEST_ARGS... build everything, export examples/tiny_cnn, then the tests
#                                              ctest selects with CTEST_ARGS (e.g. -- -L unit) instead
#
# The root is built (or completed) first, with the -dev packages the build needs; that step is
# idempotent and quick once done. The last line printed is the result with the versions, e.g.
#   sid check: libtorch 2.14.1, ONNX 1.20.0, protobuf 3.21.12, g++ 16.2.0, C++20: build ok, tiny_cnn ok, tests 120/120 passed
# and the exit status is 0 only when everything asked for passed.
#
# Environment:
#   T2O_SID_BUILD_DIR  the build directory (default $HOME/.cache/torch2onnx/sid-build; outside the repo)
#   T2O_JOBS           parallel compile and test jobs (default 2)
#   T2O_HEAVY          a command prefix (e.g. "nice -n 19") for the package installation and the whole
#                      build and test run in the root (scripts/torch2x_env.sh)
# Needs root (debootstrap, chroot, mounts), as scripts/torch2x_env.sh.
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
REPO=$(cd "$(dirname "$SELF")/.." && pwd -P)
PACKAGES="libtorch-dev libonnx-dev libprotobuf-dev protobuf-compiler cmake make g++ pkg-config libboost-dev
          libboost-filesystem-dev nlohmann-json3-dev libgtest-dev libjemalloc-dev nodejs npm libopenblas0-pthread"

# onnxruntime-node into REPO/tests/ort as scripts/setup.sh installs it (the package ships its .so).
install_ort() { (cd "$1/tests/ort" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --ignore-scripts --no-audit --no-fund); }

# --- inside the root ------------------------------------------------------------------------------
inside() {
  local build=$1 mode=$2 targets=$3 jobs=$4; shift 4
  local versions build_state="not built" tiny="not run" tests="not run" rc=0
  ver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null | sed 's/[-+~].*//'; }
  versions="libtorch $(ver libtorch-dev), ONNX $(ver libonnx-dev), protobuf $(ver libprotobuf-dev), g++ $(g++ -dumpfullversion)"
  finish() {
    local std
    std=$(sed -n 's/^T2O_CXX_STANDARD:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
    printf 'sid check: %s, C++%s: build %s, tiny_cnn %s, tests %s\n' "$versions" "${std:-?}" "$build_state" "$tiny" "$tests"
    exit "$rc"
  }
  cd "$REPO"
  echo "==> $versions"
  # sid's Node.js (24) defines Float16Array, and onnxruntime-node 1.30 then reads no bytes of a float16
  # input ("not enough space: expected 640, got 0"): the tests run node without it.
  local node_args=()
  if node --no-js-float16array -e 0 2>/dev/null && node -e 'process.exit(typeof Float16Array === "undefined" ? 1 : 0)'; then
    mkdir -p "$build"
    printf '#!/bin/sh\nexec %s --no-js-float16array "$@"\n' "$(command -v node)" >"$build/node-no-float16array"
    chmod +x "$build/node-no-float16array"
    node_args=(-DT2O_NODE="$build/node-no-float16array")
  fi
  # The tests run ONNX Runtime from tests/ort/node_modules (installed on the host below when it has
  # npm); otherwise with the root's npm.
  if ! (cd tests/ort && node -e "require('onnxruntime-node')") >/dev/null 2>&1; then
    echo "==> npm: tests/ort (onnxruntime-node)"
    install_ort "$REPO" || { build_state="not built (npm ci in tests/ort failed)"; rc=1; finish; }
  fi
  echo "==> cmake: configure $build"
  if ! cmake -S "$REPO" -B "$build" -DCMAKE_BUILD_TYPE=Release -DT2O_PYTHON=/usr/bin/python3 ${node_args[@]+"${node_args[@]}"}; then
    build_state="failed (configure)"; rc=1; finish
  fi
  local target_args=()
  if [ -n "$targets" ]; then
    local t
    for t in $targets; do target_args+=(--target "$t"); done
  fi
  echo "==> cmake: build ${targets:-everything} (-j$jobs)"
  if ! cmake --build "$build" -j"$jobs" ${target_args[@]+"${target_args[@]}"}; then
    build_state="failed"; rc=1; finish
  fi
  build_state="ok${targets:+ (targets: $targets)}"

  # The bundled example, as scripts/setup.sh does it.
  echo "==> export examples/tiny_cnn/tiny_cnn.pt"
  rm -f "$build/tiny_cnn.onnx"
  if "$build/bin/torch2onnx" export examples/tiny_cnn/tiny_cnn.pt -o "$build/tiny_cnn.onnx" \
       --input 'float32[1,3,32,32]'; then
    tiny="exported"
    if [ -d tests/ort/node_modules/onnxruntime-node ]; then
      if (cd tests/ort && node -e "
const ort = require('onnxruntime-node');
ort.InferenceSession.create(process.argv[1]).then((s) => {
  console.log('loads in ONNX Runtime: inputs [' + s.inputNames.join(', ') + '], outputs [' + s.outputNames.join(', ') + ']');
}).catch((e) => { console.error('ONNX Runtime cannot load it: ' + e.message); process.exit(1); });
" "$build/tiny_cnn.onnx"); then tiny="ok (runs in ONNX Runtime)"; else tiny="exported, ONNX Runtime refused it"; rc=1; fi
    else
      tiny="exported (tests/ort/node_modules missing: scripts/setup.sh installs it)"
    fi
  else
    tiny="failed"; rc=1
  fi
  [ "$mode" != build ] || finish

  local ctest_args=()
  case "$mode" in
    quick) ctest_args=(-L "quick|unit") ;;
    full) ctest_args=(-LE quick_extra) ;;
  esac
  export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
  export T2O_TEST_CPU_DIR="$build/test_cpu"
  rm -rf "$T2O_TEST_CPU_DIR"
  mkdir -p "$T2O_TEST_CPU_DIR"
  local log="$build/sid_ctest.log" status=0
  echo "==> ctest ${ctest_args[*]} $* (-j$jobs; log $log)"
  set +e
  ctest --test-dir "$build" --output-on-failure -j"$jobs" ${ctest_args[@]+"${ctest_args[@]}"} "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  # "97% tests passed, 3 tests failed out of 120"
  local summary
  summary=$(grep -E '^[0-9]+% tests passed' "$log" | tail -1 || true)
  if [[ $summary =~ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
    local failed=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
    tests="$((total - failed))/$total passed"
    [ "$failed" = 0 ] || tests+=" ($failed failed: $(awk '/^The following tests FAILED:/ {f=1; next}
      f && / - / {sub(/^[ \t]*[0-9]+ - /, ""); sub(/ \(.*$/, ""); printf "%s%s", sep, $0; sep=", "}' "$log"))"
  else
    tests="no result (ctest exit $status)"
  fi
  [ "$status" = 0 ] || rc=1
  finish
}

if [ "${1:-}" = --inside ]; then
  shift
  inside "$@"
fi

# --- outside: the root, then this script inside it ---------------------------------------------------
mode=quick targets="" extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick; shift ;;
    --full) mode=full; shift ;;
    --build-only) mode=build; shift ;;
    --targets) [ $# -ge 2 ] || { echo "sid_check.sh: --targets needs a list" >&2; exit 2; }
               targets=$2; mode=build; shift 2 ;;
    --) shift; extra=("$@"); mode=select; break ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$SELF"; exit 0 ;;
    *) echo "sid_check.sh: unknown argument '$1' (--quick, --full, --build-only, --targets, -- CTEST_ARGS)" >&2; exit 2 ;;
  esac
done
BUILD_DIR=${T2O_SID_BUILD_DIR:-$HOME/.cache/torch2onnx/sid-build}
mkdir -p "$BUILD_DIR"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd -P)
case "$BUILD_DIR/" in "$REPO"/*) echo "sid_check.sh: the build directory must lie outside the repository ($BUILD_DIR)" >&2; exit 2 ;; esac

# ONNX Runtime for the tests (tests/ort/node_modules), as scripts/setup.sh installs it: with the host's
# npm where there is one (it trusts what the host trusts, e.g. a proxy's certificate), else inside.
if ! [ -d "$REPO/tests/ort/node_modules/onnxruntime-node" ] && command -v npm >/dev/null 2>&1; then
  echo "==> npm: tests/ort (onnxruntime-node), on the host" >&2
  install_ort "$REPO" >&2
fi

export T2O_TORCH2X_SUITE=sid
T2O_TORCH2X_PACKAGES=$(echo $PACKAGES) bash "$REPO/scripts/torch2x_env.sh" build >&2
exec bash "$REPO/scripts/torch2x_env.sh" exec -o "$BUILD_DIR" \
  bash "$SELF" --inside "$BUILD_DIR" "$mode" "$targets" "${T2O_JOBS:-2}" ${extra[@]+"${extra[@]}"}
