// The opset 18 pack: only symbolics whose ONNX form changes at opset 18 (registered as
// T2O_SYMBOLIC("aten::op", 18)); everything else comes from the packs of opsets 9..17.
#include <torch2onnx/plugin.hpp>

T2O_PLUGIN("opset18", "0.1.0")
