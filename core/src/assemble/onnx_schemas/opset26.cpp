// ONNX opset 26 schemas the packs emit: CumProd.
#include "infer.hpp"
#include "schemas.hpp"

namespace t2o::core::onnx_schemas {

void opset26_schemas(std::vector<OpSchema>& out) {
  OpSchema s = T2O_SCHEMA("CumProd", 26);
  s.Attr("exclusive", "leave out the element itself", AttributeProto::INT, static_cast<int64_t>(0))
      .Attr("reverse", "from the end of the axis", AttributeProto::INT, static_cast<int64_t>(0))
      .Input(0, "x", "input", "T")
      .Input(1, "axis", "0-D axis", "T2")
      .Output(0, "y", "x's shape", "T")
      .TypeConstraint("T", onnx_compat::numeric_types_for_math_reduction_with_bfloat(), "numeric tensors")
      .TypeConstraint("T2", {"tensor(int32)", "tensor(int64)"}, "the axis")
      .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
        if (rank_of(ctx, 1) > 0) fail_shape_inference("CumProd: axis must be 0-D");
        same_as_input0(ctx);
      });
  out.push_back(std::move(s));
}

}  // namespace t2o::core::onnx_schemas
