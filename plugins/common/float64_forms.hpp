// Activations whose ONNX operator ONNX Runtime's CPU provider runs on float32 only (its kernel
// registrations: Elu, Selu, Celu, HardSigmoid, HardSwish, LeakyRelu, PRelu, Softplus, Softsign, ...),
// built for float64 from ops that have float64 kernels (Exp, Log, Tanh, Abs, Add, Sub, Mul, Div,
// Where, Greater, Less) and computed in float64 as PyTorch does. torch.onnx casts to float32 around
// such ops instead; a float32 round trip keeps about 7 of float64's 16 digits, so the forms here
// follow PyTorch's float64 kernels term by term. Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_FLOAT64_FORMS_HPP
#define TORCH2ONNX_PACK_COMMON_FLOAT64_FORMS_HPP

#include <torch2onnx/plugin.hpp>

namespace t2o {
namespace pack {

// Whether ONNX Runtime lacks float64 kernels of the activation ops above for this element type.
inline bool needs_float64_form(t2o_dtype dt) { return dt == T2O_DTYPE_DOUBLE; }

inline Value f64_const(Ctx& ctx, double v) { return ctx.scalar(T2O_DTYPE_DOUBLE, v); }

// x > 0 ? pos : neg
inline Value f64_where_positive(Ctx& ctx, const Value& x, const Value& pos, const Value& neg) {
  return ctx.op("Where", {ctx.op("Greater", {x, f64_const(ctx, 0.0)}), pos, neg});
}

// elu(x, alpha, scale, input_scale) = scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1))
// (PyTorch's elu kernel; selu and celu are elus with their constants).
inline Value f64_elu(Ctx& ctx, const Value& x, double alpha, double scale, double input_scale) {
  Value xs = input_scale == 1.0 ? x : ctx.op("Mul", {x, f64_const(ctx, input_scale)});
  Value neg = ctx.op("Mul", {ctx.op("Sub", {ctx.op("Exp", {xs}), f64_const(ctx, 1.0)}), f64_const(ctx, alpha)});
  Value y = f64_where_positive(ctx, x, x, neg);
  return scale == 1.0 ? y : ctx.op("Mul", {y, f64_const(ctx, scale)});
}

// x > 0 ? x : slope * x (leaky_relu with a constant slope, prelu with a weight tensor)
inline Value f64_leaky(Ctx& ctx, const Value& x, const Value& slope) {
  return f64_where_positive(ctx, x, x, ctx.op("Mul", {x, slope}));
}

// min(max(x + 3, 0), 6): hardsigmoid's and hardswish's clamp before the division by 6.
inline Value f64_relu6_shifted(Ctx& ctx, const Value& x) {
  Value t = ctx.op("Add", {x, f64_const(ctx, 3.0)});
  Value zero = f64_const(ctx, 0.0), six = f64_const(ctx, 6.0);
  t = ctx.op("Where", {ctx.op("Less", {t, zero}), zero, t});
  return ctx.op("Where", {ctx.op("Greater", {t, six}), six, t});
}

inline Value f64_hardsigmoid(Ctx& ctx, const Value& x) {
  return ctx.op("Div", {f64_relu6_shifted(ctx, x), f64_const(ctx, 6.0)});
}

// x * min(max(x + 3, 0), 6) / 6, in PyTorch's order
inline Value f64_hardswish(Ctx& ctx, const Value& x) {
  return ctx.op("Div", {ctx.op("Mul", {x, f64_relu6_shifted(ctx, x)}), f64_const(ctx, 6.0)});
}

// log1p(e) for e >= 0 without a Log1p op: u = 1 + e; e where u rounds to 1, else log(u) * e / (u - 1)
// (the quotient cancels u's rounding error, as in Goldberg's formula).
inline Value f64_log1p_nonneg(Ctx& ctx, const Value& e) {
  Value one = f64_const(ctx, 1.0);
  Value u = ctx.op("Add", {e, one});
  Value um1 = ctx.op("Sub", {u, one});
  Value q = ctx.op("Div", {ctx.op("Mul", {ctx.op("Log", {u}), e}), um1});
  return ctx.op("Where", {ctx.op("Greater", {u, one}), q, e});
}

// softplus(x, beta, threshold) = x * beta > threshold ? x : log1p(exp(x * beta)) / beta
inline Value f64_softplus(Ctx& ctx, const Value& x, double beta, double threshold) {
  Value bx = beta == 1.0 ? x : ctx.op("Mul", {x, f64_const(ctx, beta)});
  Value y = f64_log1p_nonneg(ctx, ctx.op("Exp", {bx}));
  if (beta != 1.0) y = ctx.op("Div", {y, f64_const(ctx, beta)});
  return ctx.op("Where", {ctx.op("Greater", {bx, f64_const(ctx, threshold)}), x, y});
}

// x / (1 + |x|)
inline Value f64_softsign(Ctx& ctx, const Value& x) {
  return ctx.op("Div", {x, ctx.op("Add", {ctx.op("Abs", {x}), f64_const(ctx, 1.0)})});
}

// mish(x) = x * tanh(log1p(exp(x))) (PyTorch's kernel: no threshold)
inline Value f64_mish(Ctx& ctx, const Value& x) {
  return ctx.op("Mul", {x, ctx.op("Tanh", {f64_log1p_nonneg(ctx, ctx.op("Exp", {x}))})});
}

// log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|)) (PyTorch's CPU kernel)
inline Value f64_log_sigmoid(Ctx& ctx, const Value& x) {
  Value zero = f64_const(ctx, 0.0);
  Value m = ctx.op("Where", {ctx.op("Less", {x, zero}), x, zero});
  Value e = ctx.op("Exp", {ctx.op("Neg", {ctx.op("Abs", {x})})});
  return ctx.op("Sub", {m, f64_log1p_nonneg(ctx, e)});
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_FLOAT64_FORMS_HPP
