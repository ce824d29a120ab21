// The opset 14 pack: only symbolics whose ONNX form changes at opset 14 (registered with since 10..14
// as T2O_SYMBOLIC("aten::op", 14)); everything else comes from the base pack (opset9).
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("opset14", T2O_VERSION_STRING)
