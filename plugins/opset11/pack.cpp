// The opset 11 pack: only symbolics whose ONNX form changes at opset 11 (registered with since 10..11
// as T2O_SYMBOLIC("aten::op", 11)); everything else comes from the base pack (opset9).
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("opset11", T2O_VERSION_STRING)
