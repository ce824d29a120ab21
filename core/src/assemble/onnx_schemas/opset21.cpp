// ONNX opset 21 schemas the packs emit: GroupNormalization with per-channel scale and bias.
#include "infer.hpp"
#include "schemas.hpp"

namespace t2o::core::onnx_schemas {

void opset21_schemas(std::vector<OpSchema>& out) { out.push_back(group_norm_schema(21, __FILE__, __LINE__)); }

}  // namespace t2o::core::onnx_schemas
