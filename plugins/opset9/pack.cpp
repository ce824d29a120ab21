// The opset9 pack's entry point. Symbolics live one op (family) per file, named after the op.
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("opset9", T2O_VERSION_STRING)
