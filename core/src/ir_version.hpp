// The ONNX IR version a model of a given default-domain opset declares (the lowest that carries it).
#ifndef TORCH2ONNX_CORE_IR_VERSION_HPP
#define TORCH2ONNX_CORE_IR_VERSION_HPP

#include <cstdint>

namespace t2o::core {

inline int64_t ir_version_for_opset(int64_t opset) {
  if (opset <= 17) return 8;  // ONNX 1.12
  if (opset == 18) return 8;  // ONNX 1.13
  if (opset <= 20) return 9;  // ONNX 1.14-1.15
  if (opset <= 22) return 10; // ONNX 1.16-1.17
  if (opset == 23) return 11; // ONNX 1.18
  if (opset == 24) return 12; // ONNX 1.19
  return 13;                  // ONNX 1.20+
}

}  // namespace t2o::core

#endif
