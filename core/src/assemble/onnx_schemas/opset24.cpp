// ONNX opset 24 schemas the packs emit: Swish; Attention-24 (adds nonpad_kv_seqlen).
#include "infer.hpp"
#include "schemas.hpp"

namespace t2o::core::onnx_schemas {

void opset24_schemas(std::vector<OpSchema>& out) {
  {
    OpSchema s = T2O_SCHEMA("Swish", 24);
    s.Attr("alpha", "x * sigmoid(alpha * x)", AttributeProto::FLOAT, 1.0f)
        .Input(0, "X", "input", "T")
        .Output(0, "Y", "swish(x)", "T")
        .TypeConstraint("T", float_types(), "float tensors")
        .TypeAndShapeInferenceFunction(same_as_input0);
    out.push_back(std::move(s));
  }
  out.push_back(attention_schema(24, __FILE__, __LINE__));
}

}  // namespace t2o::core::onnx_schemas
