// The opset 26 pack: only symbolics whose ONNX form changes at opset 26 (registered as
// T2O_SYMBOLIC("aten::op", 26)); everything else comes from the packs of lower opsets.
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("opset26", T2O_VERSION_STRING)
