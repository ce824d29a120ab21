// The opset 24 pack: only symbolics whose ONNX form changes at opset 24 (registered as
// T2O_SYMBOLIC("aten::op", 24)); everything else comes from the packs of lower opsets.
#include <torch2onnx/plugin.hpp>

T2O_PLUGIN("opset24", "0.1.0")
