// aten::quantize_per_tensor / quantize_per_channel: QuantizeLinear → DequantizeLinear (the quantized
// tensor's dequantized values; per channel from opset 13). aten::quantize_per_tensor_dynamic:
// DynamicQuantizeLinear → DequantizeLinear (quint8 only; opset 11). aten::dequantize: the value itself
// (it already holds the dequantized values).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"
#include "common/forms.hpp"
#include "qdq.hpp"

using namespace t2o;
using namespace t2o::quant;

namespace {

// A scale / zero point argument (number, or tensor of one element) as a 0-d ONNX value.
Value scalar_param(Ctx& ctx, const Value& v, t2o_dtype q, bool is_scale, const char* what) {
  if (v.is_const()) {
    if (v.is_tensor() && v.rank() > 0) {
      int64_t n = 1;
      for (auto d : v.dims()) n *= d;
      if (n != 1) unsupported(ctx.kind() + ": " + what + " has " + std::to_string(n) + " elements (expected one)");
    }
    return is_scale ? scale_const(ctx, v.to_float()) : zero_point_const(ctx, q, v.to_int(), what);
  }
  // Known only at run time: a 0-d tensor of the type QuantizeLinear wants.
  Value t = pack::cast_to(ctx, ctx.as_onnx(v), is_scale ? T2O_DTYPE_FLOAT : q);
  return t.rank() == 0 ? t : ctx.op("Reshape", {t, ctx.const_i64({})});
}

}  // namespace

// aten::quantize_per_tensor(Tensor self, float scale, int zero_point, ScalarType dtype) -> Tensor
// aten::quantize_per_tensor.tensor_qparams(Tensor self, Tensor scale, Tensor zero_point, ScalarType dtype)
// aten::quantize_per_tensor.tensors(Tensor[] tensors, Tensor scales, Tensor zero_points, ScalarType dtype) -> Tensor[]
T2O_SYMBOLIC("aten::quantize_per_tensor", 10) {
  if (ctx.input(0).is_list()) unsupported(ctx.kind() + ": the list overload (tensors)");
  const t2o_dtype q = qtype_of_scalar_type(ctx, ctx.input(3).to_int());
  check_quantizable(ctx, q);
  Value x = ctx.input(0);
  if (x.dtype() != T2O_DTYPE_FLOAT) x = pack::cast_to(ctx, ctx.as_onnx(x), T2O_DTYPE_FLOAT);
  ctx.set_output(0, qdq(ctx, x, scalar_param(ctx, ctx.input(1), q, true, "scale"),
                        scalar_param(ctx, ctx.input(2), q, false, "zero_point")));
}

// aten::quantize_per_channel(Tensor self, Tensor scales, Tensor zero_points, int axis, ScalarType dtype) -> Tensor
T2O_SYMBOLIC("aten::quantize_per_channel", 10) {
  const t2o_dtype q = qtype_of_scalar_type(ctx, ctx.input(4).to_int());
  check_quantizable(ctx, q);
  Value x = ctx.input(0);
  int64_t axis = ctx.input(3).to_int();
  if (axis < 0) axis += x.rank();
  pack::require(ctx, pack::feature::kPerChannelQuantization, "per-channel quantization");
  Value scales = pack::cast_to(ctx, ctx.as_onnx(ctx.input(1)), T2O_DTYPE_FLOAT);
  Value zps = ctx.input(2).is_const() ? zero_points_const(ctx, q, const_int_elements(ctx, ctx.input(2), "zero_points"))
                                      : pack::cast_to(ctx, ctx.as_onnx(ctx.input(2)), q);
  ctx.set_output(0, qdq(ctx, x, scales, zps, axis));
}

// aten::quantize_per_tensor_dynamic(Tensor self, ScalarType dtype, bool reduce_range) -> Tensor
T2O_SYMBOLIC("aten::quantize_per_tensor_dynamic", 11) {
  const t2o_dtype q = qtype_of_scalar_type(ctx, ctx.input(1).to_int());
  if (q != T2O_DTYPE_UINT8) unsupported(ctx.kind() + ": dtype " + qtype_name(q) + " (DynamicQuantizeLinear is uint8 only)");
  if (ctx.input(2).to_bool()) unsupported(ctx.kind() + ": reduce_range=True (DynamicQuantizeLinear uses the full 8-bit range)");
  auto y = ctx.op_n("DynamicQuantizeLinear", {ctx.input(0)}, 3);
  ctx.set_output(0, ctx.op("DequantizeLinear", {y[0], y[1], y[2]}));
}

// aten::dequantize.self(Tensor self) -> Tensor; aten::dequantize.tensors(Tensor[] qtensors) -> Tensor[]
T2O_SYMBOLIC("aten::dequantize", 10) {
  Value x = ctx.input(0);
  if (x.is_list()) {
    ctx.set_output(0, x);
    return;
  }
  if (ctx.input_quantized_dtype(0) == T2O_DTYPE_UNDEFINED && x.dtype() != T2O_DTYPE_FLOAT)
    unsupported(ctx.kind() + ": self is not a quantized tensor (element type " + std::to_string(x.dtype()) + ")");
  ctx.set_output(0, x);
}
