// The opset 19 pack: only symbolics whose ONNX form changes at opset 19 (registered as
// T2O_SYMBOLIC("aten::op", 19)); everything else comes from the packs of lower opsets.
#include <torch2onnx/plugin.hpp>

T2O_PLUGIN("opset19", "0.1.0")
