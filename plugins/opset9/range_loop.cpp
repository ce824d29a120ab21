// The integer arithmetic TorchScript emits for `for i in range(lo, hi, step)` (pytorch's
// register_prim_ops.cpp), for bounds known only at run time:
//   aten::__range_length(int lo, int hi, int step) -> int
//       the trip count: ceil((hi - lo) / step) when the range is not empty, else 0. As int64
//       nodes: a = (step > 0 ? hi - lo : lo - hi), s = |step|, n = (a + s - 1) / s, clamped at 0
//       (Div truncates; a + s - 1 >= 0 whenever the range is not empty, so it is floor there).
//   aten::__derive_index(int index, int start, int step) -> int      start + index * step
// Constant arguments fold to a constant.
#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <string>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void require_int(Ctx& ctx, int32_t i, const char* name) {
  if (ctx.input(i).kind() != T2O_KIND_INT)
    unsupported(ctx.kind() + ": argument '" + name + "' is not an int (value kind " +
                std::to_string((int)ctx.input(i).kind()) + ")");
}

Value i64(Ctx& ctx, const Value& v) { return to_dtype(ctx, v, T2O_DTYPE_INT64); }

}  // namespace

T2O_SYMBOLIC("aten::__range_length", 9) {
  require_int(ctx, 0, "lo");
  require_int(ctx, 1, "hi");
  require_int(ctx, 2, "step");
  Value lo = ctx.input(0), hi = ctx.input(1), step = ctx.input(2);
  if (step.is_const() && step.to_int() == 0) fail("aten::__range_length: range() arg 3 'step' must not be zero");
  if (lo.is_const() && hi.is_const() && step.is_const()) {
    int64_t l = lo.to_int(), h = hi.to_int(), s = step.to_int();
    int64_t n = 0;
    if (s > 0 && l < h) n = 1 + (h - 1 - l) / s;
    if (s < 0 && l > h) n = 1 + (l - 1 - h) / (0 - s);
    return ctx.set_output(0, ctx.make_int(n));
  }
  Value l = i64(ctx, lo), h = i64(ctx, hi), s = i64(ctx, step);
  Value zero = ctx.scalar_i64(0), one = ctx.scalar_i64(1);
  Value span = ctx.op("Where", {ctx.op("Greater", {s, zero}), ctx.op("Sub", {h, l}), ctx.op("Sub", {l, h})});
  Value abs_step = ctx.op("Abs", {s});
  Value n = ctx.op("Div", {ctx.op("Sub", {ctx.op("Add", {span, abs_step}), one}), abs_step});
  n = typed(ctx, ctx.op("Where", {ctx.op("Less", {n, zero}), zero, n}), T2O_DTYPE_INT64, 0);
  ctx.set_output(0, ctx.make_dynamic_scalar(n, T2O_KIND_INT));
}

T2O_SYMBOLIC("aten::__derive_index", 9) {
  require_int(ctx, 0, "index");
  require_int(ctx, 1, "start");
  require_int(ctx, 2, "step");
  Value index = ctx.input(0), start = ctx.input(1), step = ctx.input(2);
  if (index.is_const() && start.is_const() && step.is_const())
    return ctx.set_output(0, ctx.make_int(start.to_int() + index.to_int() * step.to_int()));
  Value i = ctx.op("Add", {i64(ctx, start), ctx.op("Mul", {i64(ctx, index), i64(ctx, step)})});
  ctx.set_output(0, ctx.make_dynamic_scalar(typed(ctx, i, T2O_DTYPE_INT64, 0), T2O_KIND_INT));
}
