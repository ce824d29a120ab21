#!/usr/bin/env bash
# Builds core, packs, CLI and the test programs of label `sanitize` with AddressSanitizer +
# UndefinedBehaviorSanitizer (-DT2O_SANITIZE=ON) in their own build directory, then runs the label
# (unit incl. ABI layout, vendor, hostile, slices of e2e and quantized: tests/CMakeLists.txt).
#   bash scripts/sanitize.sh [--build-only] [CTEST_ARGS...]
# Environment: T2O_SANITIZE_BUILD_DIR (default build-sanitize), T2O_JOBS (default 2),
# T2O_FIXTURE_CACHE (as for the other tests). Not part of .ci/run: the build takes most of an hour
# on one core, the run about 15 minutes. A finding fails its test with ASan's/UBSan's report.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD=${T2O_SANITIZE_BUILD_DIR:-build-sanitize}
JOBS=${T2O_JOBS:-2}
BUILD_ONLY=0
if [ "${1:-}" = "--build-only" ]; then BUILD_ONLY=1; shift; fi

LAUNCHER=()
if command -v ccache >/dev/null 2>&1; then
  CCACHE="env;CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT};CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;ccache"
  LAUNCHER=("-DCMAKE_CXX_COMPILER_LAUNCHER=$CCACHE" "-DCMAKE_C_COMPILER_LAUNCHER=$CCACHE")
fi
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DT2O_SANITIZE=ON "${LAUNCHER[@]}" >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target t2o_sanitize_targets
[ "$BUILD_ONLY" = 1 ] && exit 0
ctest --test-dir "$BUILD" -L sanitize -j"$JOBS" --output-on-failure "$@"
