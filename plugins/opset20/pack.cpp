// The opset 20 pack: only symbolics whose ONNX form changes at opset 20 (registered as
// T2O_SYMBOLIC("aten::op", 20)); everything else comes from the packs of lower opsets.
#include <torch2onnx/plugin.hpp>

T2O_PLUGIN("opset20", "0.1.0")
