// The opset 17 pack: only symbolics whose ONNX form changes at opset 17 (registered with since 10..17
// as T2O_SYMBOLIC("aten::op", 17)); everything else comes from the base pack (opset9).
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("opset17", T2O_VERSION_STRING)
