#include "torch2onnx/core/ir_version.hpp"

#include <stdexcept>
#include <string>

namespace t2o::core {

int64_t ir_version_for_opset(int64_t opset) {
  // {first opset, ir_version}, ascending: ONNX 1.13 (opset 18, IR 8), 1.14 (19, IR 9), 1.16 (21, IR 10),
  // 1.18 (23, IR 11), 1.19 (24, IR 12), 1.20 (25, IR 13).
  struct Step { int64_t opset, ir; };
  static constexpr Step kSteps[] = {{19, 9}, {21, 10}, {23, 11}, {24, 12}, {25, 13}};
  constexpr int64_t kHighestKnown = 26;
  if (opset > kHighestKnown)
    throw std::out_of_range("no ONNX IR version is known for opset " + std::to_string(opset));
  int64_t ir = 8;
  for (const auto& step : kSteps)
    if (opset >= step.opset) ir = step.ir;
  return ir;
}

}  // namespace t2o::core
