// The ops the core's prepare step puts where quantized constants and packed parameters were
// (core/src/prepare/quantized_params.cpp):
//   quantized_tensor → DequantizeLinear of the integer data (per tensor, or per channel with axis
//                      from opset 13); the result is the weight's dequantized FLOAT values
//   conv_packed_params / conv3d_packed_params / linear_packed_params → no ONNX node: a list of the
//                      unpacked arguments, read by the quantized conv / linear symbolics
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "qdq.hpp"

using namespace t2o;
using namespace t2o::quant;

// torch2onnx::quantized_tensor(Tensor int_repr, Tensor scale, Tensor zero_point, int axis) -> Tensor
T2O_SYMBOLIC("torch2onnx::quantized_tensor", 10) {
  Value data = ctx.input(0), scale = ctx.input(1), zero_point = ctx.input(2);
  const int64_t axis = ctx.input(3).to_int();
  const t2o_dtype q = data.dtype();
  if (q != T2O_DTYPE_UINT8 && q != T2O_DTYPE_INT8 && q != T2O_DTYPE_INT32)
    fail(ctx.kind() + ": int_repr of element type " + std::to_string(q) + " (expected uint8, int8 or int32)");
  auto zps = const_int_elements(ctx, zero_point, "zero_point");
  Value zp;
  if (axis < 0) {
    if (zps.size() != 1) fail(ctx.kind() + ": per-tensor zero_point with " + std::to_string(zps.size()) + " elements");
    zp = zero_point_const(ctx, q, zps[0]);
  } else {
    pack::require(ctx, pack::feature::kPerChannelQuantization,
                  "a per-channel quantized constant (axis=" + std::to_string(axis) + ", the weight of a quantized conv/linear)");
    zp = zero_points_const(ctx, q, zps);
  }
  std::vector<Attr> attrs;
  if (axis >= 0) attrs.push_back(Attr::i("axis", axis));
  ctx.set_output(0, ctx.op("DequantizeLinear", {ctx.as_onnx(data), ctx.as_onnx(scale), zp}, attrs));
}

// torch2onnx::conv_packed_params(Tensor weight, Tensor? bias, int[] stride, int[] padding,
//     int[] output_padding, int[] dilation, int groups, bool transposed) -> Conv2dPackedParamsBase
static void conv_params(Ctx& ctx) {
  std::vector<Value> items;
  for (int32_t i = 0; i < 8; ++i) items.push_back(ctx.input(i));
  ctx.set_output(0, ctx.make_list(items));
}
T2O_SYMBOLIC("torch2onnx::conv_packed_params", 10) { conv_params(ctx); }
// torch2onnx::conv3d_packed_params(same arguments) -> Conv3dPackedParamsBase
T2O_SYMBOLIC("torch2onnx::conv3d_packed_params", 10) { conv_params(ctx); }

// torch2onnx::linear_packed_params(Tensor weight, Tensor? bias) -> LinearPackedParamsBase
T2O_SYMBOLIC("torch2onnx::linear_packed_params", 10) {
  ctx.set_output(0, ctx.make_list({ctx.input(0), ctx.input(1)}));
}
