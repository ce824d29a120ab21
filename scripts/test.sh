#!/usr/bin/env bash
# (Re)builds if needed and runs every test (unit, ABI, end-to-end) with ctest, then prints where the
# time went: wall and CPU time per label and the ten slowest tests (scripts/test_times.py).
#   bash scripts/test.sh                 everything (what CI runs)
#   bash scripts/test.sh --quick         the developer's inner loop: the unit tests and a slice of every
#                                        end-to-end suite (labels unit and quick), a minute or two
#   bash scripts/test.sh [ctest args]    e.g. -R resnet18 or -L e2e
# Fixtures are generated at test time, once, into a cache outside the build tree that later runs on
# this machine reuse ($T2O_FIXTURE_CACHE, default ~/.cache/torch2onnx/fixtures).
# Environment: T2O_BUILD_DIR (default build), T2O_JOBS (default 2).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${T2O_BUILD_DIR:-build}
JOBS=${T2O_JOBS:-2}

# Without --quick, the quick slices (label quick_extra: copies of tests the full suites run) stay out.
args=()
quick=0
for a in "$@"; do
  if [ "$a" = "--quick" ]; then quick=1; args+=(-L "quick|unit"); else args+=("$a"); fi
done
if [ $quick = 0 ]; then args+=(-LE quick_extra); fi

if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$BUILD_DIR" -j"$JOBS"
# ctest runs $JOBS processes at once: one BLAS thread each (OpenBLAS would start one per core in each).
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
# Each test records its CPU time here (tests/common/test_main.cpp, tests/common/cpu_time.sh).
export T2O_TEST_CPU_DIR="$(cd "$BUILD_DIR" && pwd)/test_cpu"
rm -rf "$T2O_TEST_CPU_DIR"
mkdir -p "$T2O_TEST_CPU_DIR"
rm -f "$BUILD_DIR/test_results.xml"
start=$(date +%s)
status=0
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS" --output-junit test_results.xml \
  ${args[@]+"${args[@]}"} || status=$?
python3 scripts/test_times.py "$BUILD_DIR" --wall $(( $(date +%s) - start )) || true
exit $status
