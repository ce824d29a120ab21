// ONNX opset 19 schemas the packs emit: AveragePool with `dilations`, Pad with mode `wrap`, Resize
// with half_pixel_symmetric, DeformConv.
#include "infer.hpp"
#include "schemas.hpp"

namespace t2o::core::onnx_schemas {

namespace {

using onnx::getAttribute;

// N, C (or M = W's dim 0 for DeformConv), then each spatial dim by the window arithmetic. With
// auto_pad other than NOTSET the spatial dims are left unknown.
void windowed_inference(InferenceContext& ctx, bool ceil_allowed, const std::vector<int64_t>& kernel,
                        int64_t channels) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  const int rank = rank_of(ctx, 0);
  if (rank < 0) return;
  if (rank < 3) fail_shape_inference("the input must be (N, C, spatial...), got rank ", rank);
  const size_t spatial = static_cast<size_t>(rank - 2);
  if (!kernel.empty() && kernel.size() != spatial)
    fail_shape_inference("kernel_shape has ", kernel.size(), " values for ", spatial, " spatial axes");
  auto strides = ints_attr(ctx, "strides"), dilations = ints_attr(ctx, "dilations"), pads = ints_attr(ctx, "pads");
  if (strides.empty()) strides.assign(spatial, 1);
  if (dilations.empty()) dilations.assign(spatial, 1);
  if (pads.empty()) pads.assign(2 * spatial, 0);
  if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial)
    fail_shape_inference("strides/dilations/pads do not match ", spatial, " spatial axes");
  const bool ceil_mode = ceil_allowed && getAttribute(ctx, "ceil_mode", 0) != 0;
  const bool explicit_pads = string_attr(ctx, "auto_pad", "NOTSET") == "NOTSET";
  auto* out = onnx::getOutputShape(ctx, 0);
  *out->add_dim() = onnx::getInputShape(ctx, 0).dim(0);
  if (channels >= 0) set_dim(out, channels);
  else *out->add_dim() = onnx::getInputShape(ctx, 0).dim(1);
  for (size_t i = 0; i < spatial; ++i) {
    if (!explicit_pads || kernel.empty()) {
      out->add_dim();
      continue;
    }
    set_dim(out, window_out(dim_value(ctx, 0, static_cast<int>(i + 2)), kernel[i], strides[i], dilations[i], pads[i],
                            pads[i + spatial], ceil_mode));
  }
}

}  // namespace

void opset19_schemas(std::vector<OpSchema>& out) {
  {
    OpSchema s = T2O_SCHEMA("AveragePool", 19);
    s.Attr("auto_pad", "NOTSET, SAME_UPPER, SAME_LOWER, VALID", AttributeProto::STRING, std::string("NOTSET"))
        .Attr("ceil_mode", "ceil instead of floor for the output size", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("count_include_pad", "count padding in the divisor", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("dilations", "dilation per spatial axis", AttributeProto::INTS, false)
        .Attr("kernel_shape", "window size per spatial axis", AttributeProto::INTS, true)
        .Attr("pads", "begins then ends per spatial axis", AttributeProto::INTS, false)
        .Attr("strides", "stride per spatial axis", AttributeProto::INTS, false)
        .Input(0, "X", "(N, C, spatial...)", "T")
        .Output(0, "Y", "pooled", "T")
        .TypeConstraint("T", {"tensor(float16)", "tensor(float)", "tensor(double)"}, "float tensors")
        .TypeAndShapeInferenceFunction(
            [](InferenceContext& ctx) { windowed_inference(ctx, true, ints_attr(ctx, "kernel_shape"), -1); });
    out.push_back(std::move(s));
  }

  out.push_back(pad_schema(19, {"constant", "reflect", "edge", "wrap"}, __FILE__, __LINE__));

  {
    auto modes = resize_modes_18();
    modes.insert("half_pixel_symmetric");
    out.push_back(resize_schema(19, modes, __FILE__, __LINE__));
  }

  {
    OpSchema s = T2O_SCHEMA("DeformConv", 19);
    s.Attr("dilations", "dilation per spatial axis", AttributeProto::INTS, false)
        .Attr("group", "groups of input and output channels", AttributeProto::INT, static_cast<int64_t>(1))
        .Attr("kernel_shape", "kernel size per spatial axis (default: from W)", AttributeProto::INTS, false)
        .Attr("offset_group", "groups of channels sharing an offset", AttributeProto::INT, static_cast<int64_t>(1))
        .Attr("pads", "begins then ends per spatial axis", AttributeProto::INTS, false)
        .Attr("strides", "stride per spatial axis", AttributeProto::INTS, false)
        .Input(0, "X", "(N, C, spatial...)", "T")
        .Input(1, "W", "(M, C/group, kernel...)", "T")
        .Input(2, "offset", "(N, offset_group * prod(kernel) * 2, output spatial...)", "T")
        .Input(3, "B", "bias (M)", "T", kOptional)
        .Input(4, "mask", "(N, offset_group * prod(kernel), output spatial...)", "T", kOptional)
        .Output(0, "Y", "(N, M, output spatial...)", "T")
        .TypeConstraint("T", {"tensor(float16)", "tensor(float)", "tensor(double)"}, "float tensors")
        .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
          std::vector<int64_t> kernel = ints_attr(ctx, "kernel_shape");
          const int w_rank = rank_of(ctx, 1);
          if (kernel.empty() && w_rank > 2) {
            for (int i = 2; i < w_rank; ++i) kernel.push_back(dim_value(ctx, 1, i));
            bool known = true;
            for (int64_t k : kernel) known = known && k >= 0;
            if (!known) kernel.clear();
          }
          windowed_inference(ctx, false, kernel, dim_value(ctx, 1, 0));
        });
    out.push_back(std::move(s));
  }
}

}  // namespace t2o::core::onnx_schemas
