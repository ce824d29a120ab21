// ONNX opset 20 schemas the packs emit: Gelu, AffineGrid, GridSample (modes linear/nearest/cubic,
// N-D), DFT with dft_length/axis as inputs, ReduceMax/ReduceMin (bool added).
#include "infer.hpp"
#include "schemas.hpp"

namespace t2o::core::onnx_schemas {

void opset20_schemas(std::vector<OpSchema>& out) {
  {
    OpSchema s = T2O_SCHEMA("Gelu", 20);
    s.Attr("approximate", "none or tanh", AttributeProto::STRING, std::string("none"))
        .Input(0, "X", "input", "T")
        .Output(0, "Y", "gelu(x)", "T")
        .TypeConstraint("T", float_types(), "float tensors")
        .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
          const std::string approximate = string_attr(ctx, "approximate", "none");
          if (approximate != "none" && approximate != "tanh")
            fail_shape_inference("Gelu: approximate '", approximate, "' is neither 'none' nor 'tanh'");
          same_as_input0(ctx);
        });
    out.push_back(std::move(s));
  }

  {
    OpSchema s = T2O_SCHEMA("AffineGrid", 20);
    s.Attr("align_corners", "-1 and 1 are the centers (1) or the edges (0) of the corner pixels",
           AttributeProto::INT, static_cast<int64_t>(0))
        .Input(0, "theta", "(N, 2, 3) or (N, 3, 4) affine matrices", "T1")
        .Input(1, "size", "(N, C, H, W) or (N, C, D, H, W)", "T2")
        .Output(0, "grid", "(N, H, W, 2) or (N, D, H, W, 3)", "T1")
        .TypeConstraint("T1", float_types(), "float tensors")
        .TypeConstraint("T2", {"tensor(int64)"}, "the size")
        .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
          onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
          auto size = const_ints(ctx, 1);
          if (!size) return;
          if (size->size() != 4 && size->size() != 5)
            fail_shape_inference("AffineGrid: size has ", size->size(), " values (needs 4 or 5)");
          auto* shape = onnx::getOutputShape(ctx, 0);
          set_dim(shape, (*size)[0]);
          for (size_t i = 2; i < size->size(); ++i) set_dim(shape, (*size)[i]);
          set_dim(shape, static_cast<int64_t>(size->size()) - 2);
        });
    out.push_back(std::move(s));
  }

  {
    OpSchema s = T2O_SCHEMA("GridSample", 20);
    s.Attr("align_corners", "-1 and 1 are the centers (1) or the edges (0) of the corner pixels",
           AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("mode", "linear, nearest, cubic", AttributeProto::STRING, std::string("linear"))
        .Attr("padding_mode", "zeros, border, reflection", AttributeProto::STRING, std::string("zeros"))
        .Input(0, "X", "(N, C, D1, ..., Dr)", "T1")
        .Input(1, "grid", "(N, D1_out, ..., Dr_out, r)", "T2")
        .Output(0, "Y", "(N, C, D1_out, ..., Dr_out)", "T1")
        .TypeConstraint("T1", OpSchema::all_tensor_types(), "any tensor")
        .TypeConstraint("T2", {"tensor(float16)", "tensor(float)", "tensor(double)"}, "float tensors")
        .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
          // Opset 16's names (bilinear, bicubic) are not modes of GridSample-20.
          const std::string mode = string_attr(ctx, "mode", "linear");
          if (mode != "linear" && mode != "nearest" && mode != "cubic")
            fail_shape_inference("GridSample-20: mode '", mode, "' is not linear, nearest or cubic");
          onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
          const int x_rank = rank_of(ctx, 0), g_rank = rank_of(ctx, 1);
          if (x_rank < 0 || g_rank < 0) return;
          if (x_rank != g_rank) fail_shape_inference("GridSample: X has rank ", x_rank, ", grid ", g_rank);
          auto* shape = onnx::getOutputShape(ctx, 0);
          *shape->add_dim() = onnx::getInputShape(ctx, 0).dim(0);
          *shape->add_dim() = onnx::getInputShape(ctx, 0).dim(1);
          for (int i = 1; i < g_rank - 1; ++i) *shape->add_dim() = onnx::getInputShape(ctx, 1).dim(i);
        });
    out.push_back(std::move(s));
  }

  {
    OpSchema s = T2O_SCHEMA("DFT", 20);
    s.Attr("inverse", "inverse transform", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("onesided", "only the first floor(n/2)+1 frequencies", AttributeProto::INT, static_cast<int64_t>(0))
        .Input(0, "input", "(..., signal dims..., 1 or 2): real, or real and imaginary parts", "T1")
        .Input(1, "dft_length", "signal length (pads or truncates)", "T2", kOptional)
        .Input(2, "axis", "the transformed axis (default -2)", "tensor(int64)", kOptional)
        .Output(0, "output", "(..., 2)", "T1")
        .TypeConstraint("T1", float_types(), "float tensors")
        .TypeConstraint("T2", {"tensor(int32)", "tensor(int64)"}, "the length")
        .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
          onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
          const int rank = rank_of(ctx, 0);
          if (rank < 0) return;
          if (rank < 2) fail_shape_inference("DFT: the input needs a signal axis and a last axis of 1 or 2");
          const int64_t last = dim_value(ctx, 0, rank - 1);
          if (last >= 0 && last != 1 && last != 2) fail_shape_inference("DFT: the last dim must be 1 or 2, got ", last);
          int64_t axis = -2;
          if (has_input(ctx, 2)) {
            auto given = const_ints(ctx, 2);
            if (!given || given->size() != 1) return;
            axis = (*given)[0];
          }
          const int a = normalize_axis(axis, rank, "axis");
          if (a == rank - 1) fail_shape_inference("DFT: the axis cannot be the last (real/imaginary) one");
          int64_t length = dim_value(ctx, 0, a);
          if (has_input(ctx, 1)) {
            auto given = const_ints(ctx, 1);
            length = given && given->size() == 1 ? (*given)[0] : -1;
          }
          const bool onesided = onnx::getAttribute(ctx, "onesided", 0) != 0;
          auto* shape = onnx::getOutputShape(ctx, 0);
          for (int i = 0; i < rank - 1; ++i) {
            if (i != a) *shape->add_dim() = onnx::getInputShape(ctx, 0).dim(i);
            else set_dim(shape, length < 0 ? -1 : onesided ? length / 2 + 1 : length);
          }
          shape->add_dim()->set_dim_value(2);
        });
    out.push_back(std::move(s));
  }

  auto with_bool = concat(onnx_compat::numeric_types_for_math_reduction_with_bfloat(),
                          {"tensor(uint8)", "tensor(int8)", "tensor(bool)"});
  out.push_back(reduce_schema("ReduceMax", 20, with_bool, __FILE__, __LINE__));
  out.push_back(reduce_schema("ReduceMin", 20, with_bool, __FILE__, __LINE__));
}

}  // namespace t2o::core::onnx_schemas
