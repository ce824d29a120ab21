// Quantized activations with an explicit output grid: the float activation on the dequantized input,
// then QuantizeLinear/DequantizeLinear with output_scale / output_zero_point.
//   quantized::hardswish → HardSwish (opset 14), x · HardSigmoid(x) below
//   quantized::sigmoid → Sigmoid; quantized::leaky_relu → LeakyRelu; quantized::elu → Elu;
//   quantized::celu → Celu (opset 12)
// quantized::relu6 keeps its input's grid: Clip(0, 6) alone (PyTorch clamps to the grid point of 6).
// ATen's sigmoid / tanh / hardsigmoid on a quantized tensor need nothing here: their float symbolics run
// on the dequantized values and the core rounds the result to PyTorch's fixed grid (README.md, "Fixed
// grids"). A quantized::sigmoid on a grid QNNPACK cannot make is rewritten before the example run
// (core/src/prepare/quantized_params.cpp) into the float sigmoid between dequantize and quantize_per_tensor.
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "qdq.hpp"

using namespace t2o;
using namespace t2o::quant;

// quantized::hardswish(Tensor input, float output_scale, int output_zero_point) -> Tensor
T2O_SYMBOLIC("quantized::hardswish", 10) {
  Value x = ctx.input(0);
  Value y = pack::has(ctx, pack::feature::kHardSwish)
                ? ctx.op("HardSwish", {x})
                : ctx.op("Mul", {x, ctx.op("HardSigmoid", {x}, {Attr::f("alpha", 1.0 / 6), Attr::f("beta", 0.5)})});
  ctx.set_output(0, requantize(ctx, y, 1, 2));
}

// quantized::sigmoid(Tensor qx, float output_scale, int output_zero_point) -> Tensor
T2O_SYMBOLIC("quantized::sigmoid", 10) { ctx.set_output(0, requantize(ctx, ctx.op("Sigmoid", {ctx.input(0)}), 1, 2)); }

// quantized::leaky_relu(Tensor qx, Scalar negative_slope, bool inplace, float output_scale,
//                       int output_zero_point) -> Tensor
T2O_SYMBOLIC("quantized::leaky_relu", 10) {
  Value y = ctx.op("LeakyRelu", {ctx.input(0)}, {Attr::f("alpha", ctx.input(1).to_float())});
  ctx.set_output(0, requantize(ctx, y, 3, 4));
}

// quantized::elu(Tensor self, float output_scale, int output_zero_point, Scalar alpha=1, Scalar scale=1,
//                Scalar input_scale=1) -> Tensor
T2O_SYMBOLIC("quantized::elu", 10) {
  if (ctx.input(4).to_float() != 1.0 || ctx.input(5).to_float() != 1.0)
    unsupported(ctx.kind() + ": scale/input_scale other than 1 (ONNX Elu has alpha only)");
  Value y = ctx.op("Elu", {ctx.input(0)}, {Attr::f("alpha", ctx.input(3).to_float())});
  ctx.set_output(0, requantize(ctx, y, 1, 2));
}

// quantized::celu(Tensor self, float output_scale, int output_zero_point, Scalar alpha=1) -> Tensor
T2O_SYMBOLIC("quantized::celu", 12) {
  Value y = ctx.op("Celu", {ctx.input(0)}, {Attr::f("alpha", ctx.input(3).to_float())});
  ctx.set_output(0, requantize(ctx, y, 1, 2));
}

// quantized::relu6(Tensor qx, bool inplace=False) -> Tensor
T2O_SYMBOLIC("quantized::relu6", 10) {
  ctx.set_output(0, pack::clip(ctx, ctx.input(0), T2O_DTYPE_FLOAT, true, 0.0, true, 6.0));
}
