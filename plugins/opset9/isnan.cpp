// aten::isnan, isinf, isfinite, isposinf, isneginf, nan_to_num.
// IsInf needs opset 10; the same test is |x| > the dtype's largest finite value, which is valid at
// every opset, so one form serves all. Integer and bool tensors have no NaN or infinity.
#include <torch2onnx/plugin.hpp>

#include <cfloat>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

double largest(Ctx& ctx, t2o_dtype dt) {
  switch (dt) {
    case T2O_DTYPE_FLOAT: return FLT_MAX;
    case T2O_DTYPE_DOUBLE: return DBL_MAX;
    case T2O_DTYPE_FLOAT16: return 65504.0;
    case T2O_DTYPE_BFLOAT16: return 3.3895313892515355e38;
    default: unsupported(ctx.kind() + ": element type " + std::to_string((int)dt));
  }
}

// A bool tensor of x's shape filled with v (for inputs that cannot be NaN or infinite).
Value not_float_input(Ctx& ctx, const Value& x, bool v) {
  Value c = cast_to(ctx, x, T2O_DTYPE_BOOL);
  Value f = ctx.op("And", {c, ctx.op("Not", {c})});
  return v ? ctx.op("Not", {f}) : f;
}

// which: +1 = +inf, -1 = -inf, 0 = either.
Value is_inf(Ctx& ctx, const Value& x, int which) {
  t2o_dtype dt = x.dtype();
  double m = largest(ctx, dt);
  if (which > 0) return ctx.op("Greater", {x, ctx.scalar(dt, m)});
  if (which < 0) return ctx.op("Less", {x, ctx.scalar(dt, -m)});
  return ctx.op("Greater", {ctx.op("Abs", {x}), ctx.scalar(dt, m)});
}

void inf_test(Ctx& ctx, int which) {
  Value x = ctx.input(0);
  if (!is_float_dtype(x.dtype())) return ctx.set_output(0, not_float_input(ctx, x, false));
  ctx.set_output(0, is_inf(ctx, x, which));
}

}  // namespace

T2O_SYMBOLIC("aten::isnan", 9) {
  Value x = ctx.input(0);
  if (!is_float_dtype(x.dtype())) return ctx.set_output(0, not_float_input(ctx, x, false));
  ctx.set_output(0, ctx.op("IsNaN", {x}));
}
T2O_SYMBOLIC("aten::isinf", 9) { inf_test(ctx, 0); }
T2O_SYMBOLIC("aten::isposinf", 9) { inf_test(ctx, 1); }
T2O_SYMBOLIC("aten::isneginf", 9) { inf_test(ctx, -1); }
T2O_SYMBOLIC("aten::isfinite", 9) {
  Value x = ctx.input(0);
  if (!is_float_dtype(x.dtype())) return ctx.set_output(0, not_float_input(ctx, x, true));
  ctx.set_output(0, ctx.op("Not", {ctx.op("Or", {ctx.op("IsNaN", {x}), is_inf(ctx, x, 0)})}));
}

// nan_to_num(self, nan=None, posinf=None, neginf=None): NaN -> nan (0), +-inf -> posinf/neginf
// (default: the dtype's largest / lowest finite value).
T2O_SYMBOLIC("aten::nan_to_num", 9) {
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  if (!is_float_dtype(dt)) return ctx.set_output(0, x);
  double m = largest(ctx, dt);
  auto arg = [&](int32_t i, double fallback) {
    Value v = opt_input(ctx, i);
    if (!v.valid()) return fallback;
    if (!v.is_const()) unsupported(ctx.kind() + ": argument " + std::to_string(i) + " must be constant");
    return v.to_float();
  };
  double nan = arg(1, 0.0), posinf = arg(2, m), neginf = arg(3, -m);
  Value y = ctx.op("Where", {ctx.op("IsNaN", {x}), ctx.scalar(dt, nan), x});
  y = ctx.op("Where", {is_inf(ctx, x, 1), ctx.scalar(dt, posinf), y});
  y = ctx.op("Where", {is_inf(ctx, x, -1), ctx.scalar(dt, neginf), y});
  ctx.set_output(0, y);
}
