// The opset9 pack's entry point. Symbolics live one op (family) per file, named after the op.
#include <torch2onnx/plugin.hpp>

T2O_PLUGIN("opset9", "0.1.0")
