// The opset 14 pack: only symbolics whose ONNX form changes at opset 14 (registered with since 10..14
// as T2O_SYMBOLIC("aten::op", 14)); everything else comes from the base pack (opset9).
#include <torch2onnx/plugin.hpp>

T2O_PLUGIN("opset14", "0.1.0")
