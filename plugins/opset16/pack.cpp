// The opset 16 pack: only symbolics whose ONNX form changes at opset 16 (registered with since 10..16
// as T2O_SYMBOLIC("aten::op", 16)); everything else comes from the base pack (opset9).
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("opset16", T2O_VERSION_STRING)
