// aten::layer_norm below opset 17 (no LayerNormalization op yet): decomposed over the last k axes
// (k = len(normalized_shape)) as (x - mean) / sqrt(var + eps) * weight + bias, with the biased
// variance, as PyTorch computes it.
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

// layer_norm(input, normalized_shape, weight?, bias?, eps, cudnn_enable)
T2O_SYMBOLIC("aten::layer_norm", 9) {
  Value x = ctx.input(0);
  Value shape_arg = ctx.input(1);
  if (!all_const(shape_arg)) unsupported("aten::layer_norm: argument 'normalized_shape' is computed at run time");
  size_t k = shape_arg.to_ints().size();
  Value w = opt_input(ctx, 2), b = opt_input(ctx, 3);
  double eps = ctx.input(4).to_float();
  int32_t r = known_rank(ctx, x);
  if ((int32_t)k > r || k == 0)
    fail("aten::layer_norm: normalized_shape of " + std::to_string(k) + " dims for a rank-" + std::to_string(r) + " input");
  std::vector<int64_t> axes;
  for (int32_t i = r - (int32_t)k; i < r; ++i) axes.push_back(i);
  t2o_dtype dt = x.dtype();
  Value mean = reduce(ctx, "ReduceMean", x, axes, true);
  Value d = ctx.op("Sub", {x, mean});
  Value var = reduce(ctx, "ReduceMean", ctx.op("Mul", {d, d}), axes, true);
  Value y = ctx.op("Div", {d, ctx.op("Sqrt", {ctx.op("Add", {var, ctx.scalar(dt, eps)})})});
  if (w.valid()) y = ctx.op("Mul", {y, w});
  if (b.valid()) y = ctx.op("Add", {y, b});
  ctx.set_output(0, y);
}
