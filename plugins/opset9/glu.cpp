// aten::glu(self, dim=-1): a * sigmoid(b) for the two halves a, b of self along dim (static size).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::glu", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x, "input", 1);
  if (!ctx.input(1).is_const()) unsupported("aten::glu: argument 'dim' must be constant");
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  int64_t len = x.dim((int32_t)axis);
  if (len < 0) unsupported("aten::glu: dim " + std::to_string(axis) + " must have a static size");
  if (len % 2 != 0) fail("aten::glu: dim " + std::to_string(axis) + " has odd size " + std::to_string(len));
  Value a = slice(ctx, x, {axis}, {0}, {len / 2}), b = slice(ctx, x, {axis}, {len / 2}, {len});
  ctx.set_output(0, ctx.op("Mul", {a, ctx.op("Sigmoid", {b})}));
}
