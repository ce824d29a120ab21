#!/usr/bin/env bash
# Installs what torch2onnx needs, builds it, and exports the bundled example model.
# Idempotent and non-interactive: runs as root, or through sudo when not root.
#   bash scripts/setup.sh
# Environment: T2O_BUILD_DIR (default build), T2O_JOBS (default 2), T2O_SKIP_APT=1 (no apt at all).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
BUILD_DIR=${T2O_BUILD_DIR:-build}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
JOBS=${T2O_JOBS:-2}
log() { printf '\n==> %s\n' "$*"; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else SUDO="__none__"; fi
fi

# --- 1. Debian packages -------------------------------------------------------------------------
PACKAGES=(
  cmake make g++ pkg-config ca-certificates ccache
  libtorch-dev libonnx-dev libprotobuf-dev protobuf-compiler
  libboost-dev libboost-filesystem-dev nlohmann-json3-dev libgtest-dev libjemalloc-dev
  python3-torch python3-torchvision python3-numpy
  # libtorch's BLAS is whatever provides libblas.so.3: without OpenBLAS that is the reference BLAS,
  # about 10x slower for the example runs' convolutions and matmuls (and for the Python fixtures).
  libopenblas0-pthread
)
# Node.js: any node >= 16 with npm will do (the machine may have one that is not Debian's, e.g. with
# npm bundled: installing Debian's npm package over it would conflict). Otherwise Debian's.
node_ok() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 &&
    node -e 'process.exit(parseInt(process.versions.node) >= 16 ? 0 : 1)' 2>/dev/null
}
if ! node_ok; then PACKAGES+=(nodejs npm); fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  log "apt: all ${#PACKAGES[@]} packages already installed"
elif [ "${T2O_SKIP_APT:-0}" = 1 ]; then
  echo "setup.sh: missing packages ${missing[*]} (T2O_SKIP_APT=1: not installing)" >&2
  exit 1
else
  if [ "$SUDO" = "__none__" ]; then
    echo "setup.sh: need root or sudo to install: ${missing[*]}" >&2
    exit 1
  fi
  log "apt: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# --- 2. ONNX Runtime for the end-to-end tests (npm, no install script: the package ships its .so) --
log "npm: tests/ort (onnxruntime-node)"
ORT_DIR="$ROOT/tests/ort"
if [ -f "$ORT_DIR/node_modules/.package-lock.json" ] &&
   [ "$ORT_DIR/node_modules/.package-lock.json" -nt "$ORT_DIR/package-lock.json" ] &&
   (cd "$ORT_DIR" && node -e "require('onnxruntime-node')") >/dev/null 2>&1; then
  echo "tests/ort/node_modules up to date"
else
  (cd "$ORT_DIR" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --ignore-scripts --no-audit --no-fund)
fi
(cd "$ORT_DIR" && node -e "const o=require('onnxruntime-node'); console.log('onnxruntime-node ' + require('onnxruntime-node/package.json').version + ' loads')")

# --- 3. Configure and build -----------------------------------------------------------------------
log "cmake: configure $BUILD_DIR"
# ccache keeps rebuilds of a fresh clone (CI) short on a machine that built before; the paths under
# the clone are made relative so that clones in other directories share the cache.
# Its settings go into the launcher, so that every later build of this tree (scripts/test.sh, a
# developer's make) uses them: the clone's root as base directory, and the sloppiness precompiled
# headers need (core, tools and tests precompile libtorch's headers).
LAUNCHER=()
if command -v ccache >/dev/null 2>&1; then
  CCACHE="env;CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT};CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;ccache"
  LAUNCHER=("-DCMAKE_CXX_COMPILER_LAUNCHER=$CCACHE" "-DCMAKE_C_COMPILER_LAUNCHER=$CCACHE")
fi
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}"
log "cmake: build (-j$JOBS)"
time cmake --build "$BUILD_DIR" -j"$JOBS"

# --- 4. Export the bundled example ----------------------------------------------------------------
log "export examples/tiny_cnn/tiny_cnn.pt"
rm -f "$BUILD_DIR/tiny_cnn.onnx"
"$BUILD_DIR/bin/torch2onnx" export examples/tiny_cnn/tiny_cnn.pt -o "$BUILD_DIR/tiny_cnn.onnx" \
  --input 'float32[1,3,32,32]'
ls -l "$BUILD_DIR/tiny_cnn.onnx"
(cd "$ORT_DIR" && node -e "
const ort = require('onnxruntime-node');
ort.InferenceSession.create(process.argv[1]).then((s) => {
  console.log('wrote ' + process.argv[1] + ': inputs [' + s.inputNames.join(', ') + '], outputs [' +
              s.outputNames.join(', ') + '] (loads in ONNX Runtime)');
}).catch((e) => { console.error('ONNX Runtime cannot load it: ' + e.message); process.exit(1); });
" "$BUILD_DIR/tiny_cnn.onnx")
log "setup done"
