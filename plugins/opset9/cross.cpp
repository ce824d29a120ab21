// aten::cross(self, other, dim=None) and aten::linalg_cross(self, other, dim=-1): the cross product
// of 3-vectors along dim, as a1*b2 - a2*b1 where a1, a2 are a rotated by one and two places
// (Gather of [1, 2, 0] and [2, 0, 1]). cross with dim=None takes the first axis of size 3.
#include <torch2onnx/plugin.hpp>

#include <algorithm>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void cross(Ctx& ctx) {
  Value a0 = ctx.input(0), b0 = ctx.input(1);
  int64_t r = std::max(a0.rank(), b0.rank());
  known_rank(ctx, a0);
  known_rank(ctx, b0);
  Value dim = opt_input(ctx, 2);
  int64_t axis = -1;
  if (dim.valid()) {
    if (!dim.is_const()) unsupported(ctx.kind() + ": argument 'dim' must be constant");
    axis = normalize_axis(ctx, dim.to_int(), r);
  } else {
    const Value& full = a0.rank() == r ? a0 : b0;
    for (int64_t i = 0; i < r && axis < 0; ++i)
      if (full.dim((int32_t)i) == 3) axis = i;
    if (axis < 0) unsupported(ctx.kind() + ": dim=None needs a static axis of size 3");
  }
  t2o_dtype dt = output_dtype(ctx, 0, a0.dtype());
  Value a = to_dtype(ctx, a0, dt), b = to_dtype(ctx, b0, dt);
  // Operands of lower rank broadcast from the right: their axis is counted from the end.
  auto rotate = [&](const Value& v, int64_t rank, const std::vector<int64_t>& order) {
    int64_t own_axis = axis - (r - rank);
    if (own_axis < 0) fail(ctx.kind() + ": both operands need size 3 along dim " + std::to_string(axis));
    return ctx.op("Gather", {v, ctx.const_i64(order)}, {Attr::i("axis", own_axis)});
  };
  Value a1 = rotate(a, a0.rank(), {1, 2, 0}), a2 = rotate(a, a0.rank(), {2, 0, 1});
  Value b1 = rotate(b, b0.rank(), {1, 2, 0}), b2 = rotate(b, b0.rank(), {2, 0, 1});
  ctx.set_output(0, ctx.op("Sub", {ctx.op("Mul", {a1, b2}), ctx.op("Mul", {a2, b1})}));
}

}  // namespace

T2O_SYMBOLIC("aten::cross", 9) { cross(ctx); }
T2O_SYMBOLIC("aten::linalg_cross", 9) { cross(ctx); }
