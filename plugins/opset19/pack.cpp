// The opset 19 pack: only symbolics whose ONNX form changes at opset 19 (registered as
// T2O_SYMBOLIC("aten::op", 19)); everything else comes from the packs of lower opsets.
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("opset19", T2O_VERSION_STRING)
