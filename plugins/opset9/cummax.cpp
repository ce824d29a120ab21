// aten::cummax / aten::cummin(self, int dim) -> (values, indices): running max/min along dim.
// ONNX has no scan op for max, so an inclusive prefix scan in ceil(log2 L) doubling steps
// (static length L along dim): at step s, element j >= s combines with element j - s.
// Combining (earlier a, later b) keeps b when b is NaN or (a is not NaN and b >= a) (b <= a for
// cummin): PyTorch's rule (NaN wins and sticks; ties take the later index). The rule is
// associative, so the doubling scan equals PyTorch's sequential loop.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void cum_extreme(Ctx& ctx, bool is_max) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  if (!ctx.input(1).is_const()) unsupported(ctx.kind() + ": argument 'dim' must be constant");
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  t2o_dtype dt = x.dtype();
  if (dt == T2O_DTYPE_BOOL) unsupported(ctx.kind() + ": bool input");
  if (r == 0) {
    ctx.set_output(0, x);
    return ctx.set_output(1, ctx.scalar_i64(0));
  }
  int64_t len = x.dim((int32_t)axis);
  if (len < 0) unsupported(ctx.kind() + ": dim " + std::to_string(axis) + " must have a static size");
  bool is_float = is_float_dtype(dt);
  // Compare in a type ONNX Runtime's Less/Greater take.
  t2o_dtype cmp_dt = is_float || dt == T2O_DTYPE_INT32 || dt == T2O_DTYPE_INT64 ? dt : T2O_DTYPE_INT64;

  Value v = ctx.as_onnx(x);
  std::vector<int64_t> positions, idx_shape((size_t)r, 1);
  for (int64_t i = 0; i < len; ++i) positions.push_back(i);
  idx_shape[(size_t)axis] = len;
  Value idx = ctx.op("Reshape", {ctx.const_i64(positions), ctx.const_i64(idx_shape)});
  idx = ctx.op("Expand", {idx, shape_of(ctx, x)});

  for (int64_t s = 1; s < len; s *= 2) {
    Value a = slice(ctx, v, {axis}, {0}, {len - s}), b = slice(ctx, v, {axis}, {s}, {len});
    Value ai = slice(ctx, idx, {axis}, {0}, {len - s}), bi = slice(ctx, idx, {axis}, {s}, {len});
    Value ac = cast_to(ctx, typed(ctx, a, dt), cmp_dt), bc = cast_to(ctx, typed(ctx, b, dt), cmp_dt);
    // b >= a is not(b < a); b <= a is not(b > a).
    Value take_b = ctx.op("Not", {ctx.op(is_max ? "Less" : "Greater", {bc, ac})});
    if (is_float) {
      Value a_nan = ctx.op("IsNaN", {a});
      take_b = ctx.op("Or", {ctx.op("IsNaN", {b}), ctx.op("And", {ctx.op("Not", {a_nan}), take_b})});
    }
    Value nv = ctx.op("Where", {take_b, b, a}), ni = ctx.op("Where", {take_b, bi, ai});
    v = ctx.op("Concat", {slice(ctx, v, {axis}, {0}, {s}), nv}, {Attr::i("axis", axis)});
    idx = ctx.op("Concat", {slice(ctx, idx, {axis}, {0}, {s}), ni}, {Attr::i("axis", axis)});
  }
  ctx.set_output(0, v);
  ctx.set_output(1, idx);
}

}  // namespace

T2O_SYMBOLIC("aten::cummax", 9) { cum_extreme(ctx, true); }
T2O_SYMBOLIC("aten::cummin", 9) { cum_extreme(ctx, false); }
