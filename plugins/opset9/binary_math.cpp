// Elementwise functions of two or three tensors that ONNX lacks, composed from basic ops:
// aten::atan2, hypot, logaddexp, logaddexp2, xlogy, heaviside, copysign, signbit, addcmul,
// addcdiv, lerp. Operands are cast to their torch.result_type (common/promote.hpp; integer operands
// of float functions give float32), the result to the output's dtype (self's, in place).
// Float equality (Equal) needs opset 11: below, a == b is written as not(a < b or a > b).
#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "common/promote.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

Value k(Ctx& ctx, t2o_dtype dt, double v) { return ctx.scalar(dt, v); }

// The dtype the first two operands compute in; `float_result`: a floating type even for integers.
t2o_dtype result_dtype(Ctx& ctx, bool float_result) {
  std::vector<Value> operands{ctx.input(0), ctx.input(1)};
  return float_result ? float_result_type(operands) : result_type(operands);
}

// y in the TorchScript output's dtype (in-place forms keep self's).
Value as_output_dtype(Ctx& ctx, const Value& y, t2o_dtype dt) {
  t2o_dtype out = output_dtype(ctx, 0, dt);
  return out == dt ? y : ctx.op("Cast", {y}, {Attr::i("to", out)});
}

// f(a, b) on the first two inputs cast to the output dtype.
template <typename Fn>
void binary_float(Ctx& ctx, Fn body) {
  t2o_dtype dt = result_dtype(ctx, true);
  Value a = to_dtype(ctx, ctx.input(0), dt), b = to_dtype(ctx, ctx.input(1), dt);
  ctx.set_output(0, as_output_dtype(ctx, body(a, b, dt), dt));
}

// signbit of a float tensor: x < 0, or -0 (whose reciprocal is -inf).
Value signbit(Ctx& ctx, const Value& x, t2o_dtype dt) {
  Value zero = k(ctx, dt, 0.0);
  return ctx.op("Or", {ctx.op("Less", {x, zero}), ctx.op("Less", {ctx.op("Reciprocal", {x}), zero})});
}

// atan2(y, x): atan(y / x), moved by +-pi (the sign of y) when x is negative; with signed zeros
// as PyTorch: atan2(+-0, x) is +-0 for x >= +0 and +-pi for x <= -0 (y / x is NaN there).
Value atan2(Ctx& ctx, const Value& y, const Value& x, t2o_dtype dt) {
  Value zero = k(ctx, dt, 0.0);
  Value q = ctx.op("Atan", {ctx.op("Div", {y, x})});  // x = +-0: +-inf -> +-pi/2
  Value x_neg = signbit(ctx, x, dt);
  Value shift = ctx.op("Where", {signbit(ctx, y, dt), k(ctx, dt, -M_PI), k(ctx, dt, M_PI)});
  Value r = ctx.op("Where", {x_neg, ctx.op("Add", {q, shift}), q});
  Value both_zero = ctx.op("And", {equal(ctx, x, zero, dt), equal(ctx, y, zero, dt)});
  return ctx.op("Where", {both_zero, ctx.op("Where", {x_neg, shift, y}), r});
}

// log(b^a + b^c) for base e or 2: max + log_b(1 + b^-|a - c|); equal operands (also two equal
// infinities, where the difference is NaN) give a + log_b(2).
Value log_add_exp(Ctx& ctx, const Value& a, const Value& c, t2o_dtype dt, bool base2) {
  Value m = ctx.op("Max", {a, c});
  Value d = ctx.op("Neg", {ctx.op("Abs", {ctx.op("Sub", {a, c})})});
  Value p = base2 ? ctx.op("Pow", {k(ctx, dt, 2.0), d}) : ctx.op("Exp", {d});
  Value l = ctx.op("Log", {ctx.op("Add", {k(ctx, dt, 1.0), p})});
  if (base2) l = ctx.op("Div", {l, k(ctx, dt, std::log(2.0))});
  Value same = ctx.op("Add", {a, k(ctx, dt, base2 ? 1.0 : std::log(2.0))});
  return ctx.op("Where", {equal(ctx, a, c, dt), same, ctx.op("Add", {m, l})});
}

}  // namespace

T2O_SYMBOLIC("aten::atan2", 9) {
  Value a = ctx.input(0), b = ctx.input(1);
  if (a.kind() != T2O_KIND_TENSOR && b.kind() != T2O_KIND_TENSOR) {
    if (!a.is_const() || !b.is_const()) unsupported("aten::atan2: numbers computed at run time");
    return ctx.set_output(0, ctx.make_float(std::atan2(a.to_float(), b.to_float())));
  }
  binary_float(ctx, [&](const Value& y, const Value& x, t2o_dtype dt) { return atan2(ctx, y, x, dt); });
}
T2O_SYMBOLIC("aten::arctan2", 9) {
  binary_float(ctx, [&](const Value& y, const Value& x, t2o_dtype dt) { return atan2(ctx, y, x, dt); });
}

// hypot(a, b) = sqrt(a^2 + b^2)
T2O_SYMBOLIC("aten::hypot", 9) {
  binary_float(ctx, [&](const Value& a, const Value& b, t2o_dtype) {
    return ctx.op("Sqrt", {ctx.op("Add", {ctx.op("Mul", {a, a}), ctx.op("Mul", {b, b})})});
  });
}

T2O_SYMBOLIC("aten::logaddexp", 9) {
  binary_float(ctx, [&](const Value& a, const Value& b, t2o_dtype dt) { return log_add_exp(ctx, a, b, dt, false); });
}
T2O_SYMBOLIC("aten::logaddexp2", 9) {
  binary_float(ctx, [&](const Value& a, const Value& b, t2o_dtype dt) { return log_add_exp(ctx, a, b, dt, true); });
}

// xlogy(x, y) = x * log(y), 0 where x == 0 unless y is NaN.
T2O_SYMBOLIC("aten::xlogy", 9) {
  binary_float(ctx, [&](const Value& x, const Value& y, t2o_dtype dt) {
    Value zero = k(ctx, dt, 0.0);
    Value r = ctx.op("Where", {equal(ctx, x, zero, dt), zero, ctx.op("Mul", {x, ctx.op("Log", {y})})});
    return ctx.op("Where", {ctx.op("IsNaN", {y}), y, r});
  });
}

// heaviside(x, values): 0 for x < 0, values for x == 0, 1 for x > 0 (same dtype operands).
T2O_SYMBOLIC("aten::heaviside", 9) {
  t2o_dtype dt = result_dtype(ctx, false);
  Value x = to_dtype(ctx, ctx.input(0), dt), v = to_dtype(ctx, ctx.input(1), dt);
  Value zero = k(ctx, dt, 0.0);
  Value step = ctx.op("Cast", {ctx.op("Greater", {x, zero})}, {Attr::i("to", dt)});
  ctx.set_output(0, ctx.op("Where", {equal(ctx, x, zero, dt), v, step}));
}

// copysign(a, b): |a| with the sign bit of b (float result).
T2O_SYMBOLIC("aten::copysign", 9) {
  binary_float(ctx, [&](const Value& a, const Value& b, t2o_dtype dt) {
    Value m = ctx.op("Abs", {a});
    return ctx.op("Where", {signbit(ctx, b, dt), ctx.op("Neg", {m}), m});
  });
}

// signbit(x): bool; integers: x < 0; bool: false.
T2O_SYMBOLIC("aten::signbit", 9) {
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  if (dt == T2O_DTYPE_BOOL) return ctx.set_output(0, ctx.op("And", {x, ctx.scalar(T2O_DTYPE_BOOL, 0)}));
  if (!is_float_dtype(dt)) {
    // (compared in int64: ONNX Runtime's Less lacks 8/16-bit integer kernels)
    Value xi = cast_to(ctx, ctx.as_onnx(x), T2O_DTYPE_INT64);
    return ctx.set_output(0, ctx.op("Less", {xi, ctx.scalar_i64(0)}));
  }
  ctx.set_output(0, signbit(ctx, ctx.as_onnx(x), dt));
}

// addcmul(self, t1, t2, value=1) = self + value * t1 * t2; addcdiv: self + value * t1 / t2.
namespace {
void addc(Ctx& ctx, const char* op_type) {
  t2o_dtype dt = result_type({ctx.input(0), ctx.input(1), ctx.input(2)});
  Value self = to_dtype(ctx, ctx.input(0), dt);
  Value prod = ctx.op(op_type, {to_dtype(ctx, ctx.input(1), dt), to_dtype(ctx, ctx.input(2), dt)});
  Value value = opt_input(ctx, 3);
  if (value.valid()) {
    if (!value.is_const()) unsupported(ctx.kind() + ": argument 'value' must be constant");
    if (value.to_float() != 1.0) prod = ctx.op("Mul", {prod, to_dtype(ctx, value, dt)});
  }
  ctx.set_output(0, as_output_dtype(ctx, ctx.op("Add", {self, prod}), dt));
}
}  // namespace
T2O_SYMBOLIC("aten::addcmul", 9) { addc(ctx, "Mul"); }
T2O_SYMBOLIC("aten::addcdiv", 9) { addc(ctx, "Div"); }

// lerp(start, end, weight) = start + weight * (end - start) (weight a number or a tensor).
T2O_SYMBOLIC("aten::lerp", 9) {
  t2o_dtype dt = result_type({ctx.input(0), ctx.input(1)});
  Value s = to_dtype(ctx, ctx.input(0), dt), e = to_dtype(ctx, ctx.input(1), dt);
  Value w = to_dtype(ctx, ctx.input(2), dt);
  ctx.set_output(0, as_output_dtype(ctx, ctx.op("Add", {s, ctx.op("Mul", {w, ctx.op("Sub", {e, s})})}), dt));
}
