// The opset 23 pack: only symbolics whose ONNX form changes at opset 23 (registered as
// T2O_SYMBOLIC("...", 23)); everything else comes from the packs of lower opsets.
#include <torch2onnx/plugin.hpp>

T2O_PLUGIN("opset23", "0.1.0")
