#!/bin/bash
# The Debian packages, as a user gets them: `cpack -G DEB` from this build (nothing recompiled), the
# control fields (Depends on the packages owning the libtorch, ONNX and protobuf libraries the program
# links), both packages unpacked (dpkg-deb -x) into a scratch root, examples/vendor_plugin and
# examples/embed configured and built against that root alone, and the unpacked program run: it finds
# its packs relative to itself, loads the vendor pack, exports the example model, which ONNX Runtime
# loads; the embed example built against the root exports it in-process too.
#
#   test_packaging.sh BUILD_DIR SOURCE_DIR WORK_DIR CMAKE CPACK NODE
set -euo pipefail
BUILD=$1 SRC=$2 WORK=$3 CMAKE=$4 CPACK=$5 NODE=$6

fail() { echo "FAIL: $*" >&2; exit 1; }
# grep that reads all of its input (grep -q stops early, and with pipefail the writer's SIGPIPE fails
# the pipeline).
has() { grep "$@" > /dev/null; }
step() { echo "--- [${SECONDS}s] $*"; }

rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

step "cpack -G DEB"
"$CPACK" -G DEB --config "$BUILD/CPackConfig.cmake" -B "$WORK/debs" > cpack.log 2>&1 || { cat cpack.log; fail "cpack"; }
main_deb=$(ls debs/torch2onnx_*.deb)
dev_deb=$(ls debs/torch2onnx-dev_*.deb)
echo "$main_deb $dev_deb"

step "control fields"
[ "$(dpkg-deb -f "$main_deb" Package)" = torch2onnx ] || fail "main package name"
[ "$(dpkg-deb -f "$dev_deb" Package)" = torch2onnx-dev ] || fail "dev package name"
version=$(dpkg-deb -f "$main_deb" Version)
depends=$(dpkg-deb -f "$main_deb" Depends)
dev_depends=$(dpkg-deb -f "$dev_deb" Depends)
echo "Version: $version"
echo "torch2onnx Depends: $depends"
echo "torch2onnx-dev Depends: $dev_depends"
grep -q "^project(torch2onnx VERSION $version " "$SRC/CMakeLists.txt" || fail "package version $version is not project(VERSION)"
[[ ", $dev_depends," == *", torch2onnx (= $version),"* ]] || fail "-dev does not depend on torch2onnx (= $version)"
[[ "$dev_depends" == *libtorch-dev* ]] || fail "-dev does not depend on libtorch-dev"

step "unpack both into $WORK/root"
dpkg-deb -x "$main_deb" root
dpkg-deb -x "$dev_deb" root
usr=$WORK/root/usr
cli=$usr/bin/torch2onnx
cli_library=$usr/lib/libtorch2onnx_cli.so  # the commands, the core and libtorch, which the program loads
for f in "$cli" "$cli_library" "$usr/lib/torch2onnx/plugins/t2o_opset9.so" "$usr/lib/torch2onnx/optional/com.microsoft/t2o_com_microsoft.so" \
         "$usr/lib/libtorch2onnx_ops.so" "$usr/lib/libtorch2onnx_compat.so" "$usr/include/torch2onnx/plugin.h" "$usr/include/torch2onnx/version.h" \
         "$usr/include/torch2onnx/torch2onnx.hpp" "$usr/include/torch2onnx/registry.hpp" \
         "$usr/lib/cmake/Torch2OnnxSDK/Torch2OnnxSDKConfig.cmake" "$usr/lib/cmake/Torch2Onnx/Torch2OnnxConfig.cmake" \
         "$usr/lib/libtorch2onnx_core.so"; do
  [ -e "$f" ] || fail "missing after unpacking: ${f#$WORK/root}"
done
# Runtime files in torch2onnx, development files in torch2onnx-dev, nothing in both.
dpkg-deb -c "$main_deb" | has '/usr/include/' && fail "headers in the torch2onnx package"
dpkg-deb -c "$main_deb" | has '/usr/lib/cmake/' && fail "CMake packages in the torch2onnx package"
dpkg-deb -c "$dev_deb" | has '/usr/bin/' && fail "the program in the -dev package"
dpkg-deb -c "$dev_deb" | has 'plugins/' && fail "packs in the -dev package"

step "Depends names the packages of the libraries the program loads"
# ldd once, read from a variable: no pipe, so no SIGPIPE that pipefail and set -e would turn into a
# silent exit (awk stopping early killed ldd that way).
# The program itself links no libtorch (--version and --help without its start-up); its command
# library does.
launcher_linked=$(ldd "$cli")
[[ "$launcher_linked" != *libtorch* ]] || fail "$cli links libtorch: $launcher_linked"
linked=$(ldd "$cli_library")
for lib in libtorch libonnx libprotobuf; do
  path=$(awk -v l="$lib" '$1 ~ "^"l"\\.so" {print $3; exit}' <<< "$linked")
  [ -n "$path" ] || fail "$cli_library does not link $lib"
  real=$(readlink -f "$path")
  owner=$(dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null) || fail "no package owns $real"
  owner=${owner%%:*}
  [[ ", $depends," == *", $owner,"* ]] || fail "Depends lacks $owner (owner of $real): $depends"
  echo "$lib -> $owner"
done

step "the Python module where Debian's Python looks, finding its library"
PYTHONPATH=$usr/lib/python3/dist-packages /usr/bin/python3 -c "
import torch, torch2onnx_ops
assert torch2onnx_ops.__file__.startswith('$usr/lib/python3/dist-packages/'), torch2onnx_ops.__file__
assert hasattr(torch.ops.onnx_symbolic, '_symbolic')
" || fail "torch2onnx_ops is not importable from $usr/lib/python3/dist-packages"

step "the unpacked program finds its packs relative to itself"
plugins_json=$("$cli" plugins --json)
echo "$plugins_json" | has "\"$usr/lib/torch2onnx/plugins/t2o_opset9.so\"" || fail "bundled packs not loaded from $usr/lib/torch2onnx/plugins"
"$cli" --version | has "^torch2onnx $version " || fail "--version is not $version"
# Installed binaries find their libraries by the system's paths, not the build tree's.
for f in "$cli" "$cli_library" "$usr/lib/libtorch2onnx_core.so"; do
  dyn=$(readelf -d "$f")
  [[ "$dyn" != *"$BUILD"* ]] || fail "${f#$WORK/root} has an RPATH/RUNPATH into the build tree: $(grep -E 'RPATH|RUNPATH' <<< "$dyn")"
done

step "examples/vendor_plugin against the unpacked root"
"$CMAKE" -S "$SRC/examples/vendor_plugin" -B vendor_build -DCMAKE_PREFIX_PATH="$usr" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > vendor.log 2>&1 || { cat vendor.log; fail "configure vendor_plugin"; }
"$CMAKE" --build vendor_build >> vendor.log 2>&1 || { cat vendor.log; fail "build vendor_plugin"; }
grep -q "Torch2OnnxSDK_DIR:PATH=$usr/lib/cmake/Torch2OnnxSDK" vendor_build/CMakeCache.txt || fail "SDK not found in the root"
"$cli" plugins --strict --plugin-path vendor_build/myvendor_pack.so > vendor_plugins.txt 2>&1 || { cat vendor_plugins.txt; fail "vendor pack refused"; }
grep -q myvendor vendor_plugins.txt || fail "vendor pack not listed"

step "examples/embed against the unpacked root"
"$CMAKE" -S "$SRC/examples/embed" -B embed_build -DCMAKE_PREFIX_PATH="$usr" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > embed.log 2>&1 || { cat embed.log; fail "configure embed"; }
"$CMAKE" --build embed_build >> embed.log 2>&1 || { cat embed.log; fail "build embed"; }
grep -q "Torch2Onnx_DIR:PATH=$usr/lib/cmake/Torch2Onnx" embed_build/CMakeCache.txt || fail "Torch2Onnx not found in the root"

step "export the example model with the unpacked program and in-process"
model=$SRC/examples/tiny_cnn/tiny_cnn.pt
"$cli" export "$model" -o tiny_cli.onnx --input 'float32[1,3,32,32]' -q || fail "export with the unpacked program"
embed_build/embed_export "$model" tiny_embed.onnx --input 'float32[1,3,32,32]' > embed_run.txt || fail "embed_export"
cat embed_run.txt
ldd embed_build/embed_export | has "libtorch2onnx_core.so.* => $usr/lib/" || fail "embed_export does not use the unpacked library"
for f in tiny_cli.onnx tiny_embed.onnx; do
  (cd "$SRC/tests/ort" && "$NODE" -e "
const ort = require('onnxruntime-node');
ort.InferenceSession.create(process.argv[1]).then(async (s) => {
  const x = new ort.Tensor('float32', Float32Array.from({length: 3 * 32 * 32}, (_, i) => Math.sin(i)), [1, 3, 32, 32]);
  const y = await s.run({[s.inputNames[0]]: x});
  console.log(process.argv[1] + ': ' + Array.from(y[s.outputNames[0]].data.slice(0, 4)).join(' '));
}).catch((e) => { console.error(e.message); process.exit(1); });
" "$WORK/$f") > "$f.ort.txt" || { cat "$f.ort.txt"; fail "ONNX Runtime cannot run $f"; }
  cat "$f.ort.txt"
done
# The program and the library produce the same model.
cmp -s <(cut -d: -f2 tiny_cli.onnx.ort.txt) <(cut -d: -f2 tiny_embed.onnx.ort.txt) || fail "the program's and the library's models differ in ONNX Runtime"
echo "packaging: OK"
