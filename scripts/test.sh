#!/usr/bin/env bash
# (Re)builds if needed and runs every test (unit, ABI, end-to-end) with ctest.
#   bash scripts/test.sh [extra ctest args, e.g. -R resnet18 or -L e2e]
# The e2e fixtures are generated at test time into $BUILD_DIR/e2e/fixtures (reused afterwards).
# Environment: T2O_BUILD_DIR (default build), T2O_JOBS (default 2).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${T2O_BUILD_DIR:-build}
JOBS=${T2O_JOBS:-2}

if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$BUILD_DIR" -j"$JOBS"
# ctest runs $JOBS processes at once: one BLAS thread each (OpenBLAS would start one per core in each).
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS" "$@"
