// The opset 10 pack: only symbolics whose ONNX form changes at opset 10 (registered with since 10..10
// as T2O_SYMBOLIC("aten::op", 10)); everything else comes from the base pack (opset9).
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("opset10", T2O_VERSION_STRING)
