// aten::cosine_similarity(x1, x2, int dim=1, float eps=1e-8):
//   sum(x1*x2, dim) / max(sqrt(sum(x1^2, dim) * sum(x2^2, dim)), eps)
// (x1 and x2 broadcast against each other; dim counts in the broadcast rank.) This is torch.onnx's
// formula; ATen clamps slightly differently, which only matters for norms near eps.
#include <torch2onnx/plugin.hpp>

#include <algorithm>

#include "common/reduce.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::cosine_similarity", 9) {
  Value x1 = ctx.input(0), x2 = ctx.input(1), dim = ctx.input(2), eps = ctx.input(3);
  known_rank(ctx, x1);
  known_rank(ctx, x2);
  int64_t r = std::max(x1.rank(), x2.rank());
  if (!dim.is_const()) unsupported("aten::cosine_similarity: argument 'dim' computed at run time");
  if (!eps.is_const()) unsupported("aten::cosine_similarity: argument 'eps' computed at run time");
  int64_t axis = normalize_axis(ctx, dim.to_int(), r);
  t2o_dtype dt = output_dtype(ctx, 0, x1.dtype());
  if (!is_float_dtype(dt)) unsupported("aten::cosine_similarity: inputs must be floating point");
  Value a = to_dtype(ctx, x1, dt), b = to_dtype(ctx, x2, dt);
  Value ab = ctx.op("Mul", {a, b});
  // PyTorch expands x1 and x2 to their broadcast shape first (a size-1 dim along `dim` then counts
  // n times in the norm): do the same unless both shapes are the same and static.
  if (!(x1.has_static_shape() && x2.has_static_shape() && x1.dims() == x2.dims())) {
    Value shape = ctx.op("Shape", {ab});
    a = ctx.op("Expand", {a, shape});
    b = ctx.op("Expand", {b, shape});
  }
  Value cross = reduce(ctx, "ReduceSum", ab, {axis}, false);
  Value na = reduce(ctx, "ReduceSum", ctx.op("Mul", {a, a}), {axis}, false);
  Value nb = reduce(ctx, "ReduceSum", ctx.op("Mul", {b, b}), {axis}, false);
  Value denom = ctx.op("Max", {ctx.op("Sqrt", {ctx.op("Mul", {na, nb})}), ctx.scalar(dt, eps.to_float())});
  ctx.set_output(0, ctx.op("Div", {cross, denom}));
}
