// aten::native_layer_norm: layer_norm's three outputs, decomposed over the last k axes
// (k = len(normalized_shape)) with the biased variance, as PyTorch computes them:
//   out  = (x - mean) * rstd * weight + bias
//   mean = ReduceMean(x) over those axes, kept as size-1 dims
//   rstd = 1 / sqrt(var + eps), same shape as mean
//
// native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias,
//                   float eps) -> (Tensor, Tensor, Tensor)
#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::native_layer_norm", 9) {
  Value x = ctx.input(0);
  Value shape_arg = ctx.input(1);
  int64_t k = shape_arg.kind() == T2O_KIND_LIST ? shape_arg.list_size() : -1;
  if (k < 0) unsupported("aten::native_layer_norm: argument 'normalized_shape' is not a list");
  Value w = opt_input(ctx, 2), b = opt_input(ctx, 3);
  if (!ctx.input(4).is_const()) unsupported("aten::native_layer_norm: argument 'eps' is computed at run time");
  double eps = ctx.input(4).to_float();
  int64_t r = known_rank(ctx, x);
  if (k > r || k == 0)
    fail("aten::native_layer_norm: normalized_shape of " + std::to_string(k) + " dims for a rank-" +
         std::to_string(r) + " input");
  std::vector<int64_t> axes;
  for (int64_t i = r - k; i < r; ++i) axes.push_back(i);
  t2o_dtype dt = x.dtype();
  Value mean = reduce(ctx, "ReduceMean", x, axes, true);
  Value centered = ctx.op("Sub", {x, mean});
  Value var = reduce(ctx, "ReduceMean", ctx.op("Mul", {centered, centered}), axes, true);
  Value rstd = ctx.op("Reciprocal", {ctx.op("Sqrt", {ctx.op("Add", {var, ctx.scalar(dt, eps)})})});
  Value y = ctx.op("Mul", {centered, rstd});
  if (w.valid()) y = ctx.op("Mul", {y, w});
  if (b.valid()) y = ctx.op("Add", {y, b});
  ctx.set_output(0, y);
  ctx.set_output(1, mean);
  ctx.set_output(2, rstd);
}
