// The opset 11 pack: only symbolics whose ONNX form changes at opset 11 (registered with since 10..11
// as T2O_SYMBOLIC("aten::op", 11)); everything else comes from the base pack (opset9).
#include <torch2onnx/plugin.hpp>

T2O_PLUGIN("opset11", "0.1.0")
