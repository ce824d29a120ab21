#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang in their own build directory and runs each for a
# while on a copy of its seed corpus (fuzz/corpus/NAME), with its dictionary (fuzz/dict/NAME.dict) when
# it has one. The targets' own sources are built with AddressSanitizer and UBSan too (fuzz/CMakeLists.txt).
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# Environment: T2O_FUZZ_BUILD_DIR (default build-fuzz), T2O_JOBS (default 2).
# A crash leaves its input as build-fuzz/fuzz/crash-*; the exit status is non-zero when one was found.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SECONDS_EACH=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz_input_spec fuzz_json_pack fuzz_tensor_file fuzz_archive_bounds fuzz_torchscript_load fuzz_onnx_reader
                                     fuzz_torch_save fuzz_pt2_program)
BUILD=${T2O_FUZZ_BUILD_DIR:-build-fuzz}
JOBS=${T2O_JOBS:-2}

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DT2O_FUZZ=ON -DT2O_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target "${TARGETS[@]}"

status=0
for t in "${TARGETS[@]}"; do
  corpus="$BUILD/fuzz/corpus-${t#fuzz_}"
  mkdir -p "$corpus"
  cp -n fuzz/corpus/"${t#fuzz_}"/* "$corpus"/ 2>/dev/null || true
  dict=()
  [ -f "fuzz/dict/${t#fuzz_}.dict" ] && dict=("-dict=$PWD/fuzz/dict/${t#fuzz_}.dict")
  echo "==> $t: ${SECONDS_EACH} s"
  # -rss_limit_mb: a reader that allocated what a file claims shows as an out-of-memory crash.
  if ! (cd "$BUILD/fuzz" && ./"$t" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -max_len=65536 \
          -print_final_stats=1 "${dict[@]}" "corpus-${t#fuzz_}" 2>&1 | tail -n 12); then
    status=1
  fi
done
exit $status
