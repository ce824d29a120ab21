// quantized::linear (± _relu): Gemm (2-D input) or MatMul + Add on the dequantized input and weight,
// then QuantizeLinear/DequantizeLinear with Y_scale_i / Y_zero_point_i.
// quantized::linear_dynamic (± _relu): dynamic quantization of a float input, as qnnpack does it:
// DynamicQuantizeLinear (uint8, range from the data, always including 0; opset 11), DequantizeLinear,
// then the float product with the dequantized weight; the result is float.
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "qdq.hpp"

using namespace t2o;
using namespace t2o::quant;

namespace {

// x · weightᵀ + bias for x of any rank ≥ 1 (weight [out, in], bias [out] or None).
Value linear_float(Ctx& ctx, const Value& x, int32_t x_rank, const Value& params) {
  if (!params.is_list() || params.list_size() != 2)
    unsupported(ctx.kind() + ": W_prepack is not a constant packed-parameter object");
  Value weight = params.item(0), bias = params.item(1);
  if (weight.dtype() == T2O_DTYPE_FLOAT16)
    unsupported(ctx.kind() + ": float16 packed weights (linear_prepack_fp16) are not exported");
  // At opset 10, no Gemm with a bias: ONNX Runtime's QDQ fusion would quantize it with Round (opset 11).
  if (x_rank == 2 && (bias.is_none() || pack::has(ctx, pack::feature::kRound))) {
    std::vector<Value> in = {x, weight};
    if (!bias.is_none()) in.push_back(bias);
    return ctx.op("Gemm", in, {Attr::i("transB", 1)});
  }
  Value y = ctx.op("MatMul", {x, ctx.op("Transpose", {weight}, {Attr::ints("perm", {1, 0})})});
  return bias.is_none() ? y : ctx.op("Add", {y, bias});
}

// quantized::linear(Tensor X, LinearPackedParamsBase W_prepack, float Y_scale_i, int Y_zero_point_i) -> Tensor Y
void linear(Ctx& ctx, bool relu) {
  Value y = linear_float(ctx, ctx.input(0), ctx.input(0).rank(), ctx.input(1));
  if (relu) y = ctx.op("Relu", {y});
  ctx.set_output(0, requantize(ctx, y, 2, 3));
}

// quantized::linear_dynamic(Tensor X, LinearPackedParamsBase W_prepack, bool reduce_range=False) -> Tensor Y
void linear_dynamic(Ctx& ctx, bool relu) {
  // reduce_range (7-bit activations) is what fbgemm does; qnnpack ignores it (and warns), and ONNX's
  // DynamicQuantizeLinear has the full 8-bit range: the qnnpack result is the one reproduced.
  Value x = ctx.input(0);
  if (x.dtype() != T2O_DTYPE_FLOAT) unsupported(ctx.kind() + ": X of a type other than float32");
  pack::require(ctx, pack::feature::kDynamicQuantizeLinear, "dynamic quantization");
  auto q = ctx.op_n("DynamicQuantizeLinear", {x}, 3);
  Value xq = ctx.op("DequantizeLinear", {q[0], q[1], q[2]});
  Value y = linear_float(ctx, xq, x.rank(), ctx.input(1));
  if (relu) y = ctx.op("Relu", {y});
  ctx.set_output(0, y);
}

}  // namespace

T2O_SYMBOLIC("quantized::linear", 10) { linear(ctx, false); }
T2O_SYMBOLIC("quantized::linear_relu", 10) { linear(ctx, true); }
T2O_SYMBOLIC("quantized::linear_dynamic", 10) { linear_dynamic(ctx, false); }
T2O_SYMBOLIC("quantized::linear_relu_dynamic", 10) { linear_dynamic(ctx, true); }
