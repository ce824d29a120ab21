// The ModelProto.ir_version an exported model declares, by the target opset of the default domain.
#ifndef TORCH2ONNX_CORE_IR_VERSION_HPP
#define TORCH2ONNX_CORE_IR_VERSION_HPP

#include <cstdint>

namespace t2o::core {

// The IR version of the ONNX release that introduced `opset` (ONNX's docs/Versioning.md): 8 up to
// opset 18 (what this exporter has always written below 18), 9 for 19-20, 10 for 21-22, 11 for 23,
// 12 for 24, 13 for 25-26. Throws std::out_of_range above the highest opset it knows.
int64_t ir_version_for_opset(int64_t opset);

}  // namespace t2o::core

#endif
