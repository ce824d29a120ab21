// The quantized pack: quantized:: ops, aten::quantize_per_* / dequantize and the fake-quantize ops
// in ONNX's QDQ form (see README.md in this directory for the representation of quantized tensors).
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("quantized", T2O_VERSION_STRING)
