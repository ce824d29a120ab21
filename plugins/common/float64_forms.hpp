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

// hardshrink: x where |x| > l, else 0; softshrink: x - l where x > l, x + l where x < -l, else 0
// (Shrink's lambd and bias are float32 attributes).
inline Value f64_shrink(Ctx& ctx, const Value& x, double l, bool soft) {
  Value zero = f64_const(ctx, 0.0), lv = f64_const(ctx, l), nl = f64_const(ctx, -l);
  Value above = ctx.op("Greater", {x, lv}), below = ctx.op("Less", {x, nl});
  Value hi = soft ? ctx.op("Sub", {x, lv}) : x, lo = soft ? ctx.op("Add", {x, lv}) : x;
  return ctx.op("Where", {above, hi, ctx.op("Where", {below, lo, zero})});
}

// clamp(x, lo, hi) with Where (Clip runs on float64 only from opset 12 in ONNX Runtime, and its
// bounds are float32 attributes before opset 11).
inline Value f64_clamp(Ctx& ctx, const Value& x, bool has_min, double lo, bool has_max, double hi) {
  Value y = x;
  if (has_min) y = ctx.op("Where", {ctx.op("Less", {y, f64_const(ctx, lo)}), f64_const(ctx, lo), y});
  if (has_max) y = ctx.op("Where", {ctx.op("Greater", {y, f64_const(ctx, hi)}), f64_const(ctx, hi), y});
  return y;
}

// erf(x) for float64 (ONNX Runtime's Erf is float32 only): the everywhere-positive series
//   erf(x) = 2/sqrt(pi) * exp(-x^2) * x * sum_n (2x^2)^n / (1 * 3 * ... * (2n+1)),
// evaluated in Horner form on x clamped to [-6, 6] (erf(6) is 1 in float64). No term cancels
// another, so the sum keeps float64's relative precision; 110 terms reach it at |x| = 6.
inline Value f64_erf(Ctx& ctx, const Value& x) {
  Value c = f64_clamp(ctx, x, true, -6.0, true, 6.0);
  Value t = ctx.op("Mul", {ctx.op("Mul", {c, c}), f64_const(ctx, 2.0)});
  Value one = f64_const(ctx, 1.0);
  Value r = one;
  for (int n = 110; n >= 1; --n)
    r = ctx.op("Add", {one, ctx.op("Mul", {ctx.op("Mul", {t, f64_const(ctx, 1.0 / (2.0 * n + 1.0))}), r})});
  Value e = ctx.op("Exp", {ctx.op("Neg", {ctx.op("Mul", {c, c})})});
  return ctx.op("Mul", {ctx.op("Mul", {ctx.op("Mul", {c, r}), e}), f64_const(ctx, 1.1283791670955126)});
}

// gelu: x * 0.5 * (1 + erf(x / sqrt(2))), or with approximate='tanh'
// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) (PyTorch's formulas)
inline Value f64_gelu(Ctx& ctx, const Value& x, bool tanh_form) {
  Value one = f64_const(ctx, 1.0), half = f64_const(ctx, 0.5);
  Value inner;
  if (tanh_form) {
    Value x3 = ctx.op("Mul", {ctx.op("Mul", {x, x}), x});
    Value u = ctx.op("Add", {x, ctx.op("Mul", {x3, f64_const(ctx, 0.044715)})});
    inner = ctx.op("Tanh", {ctx.op("Mul", {u, f64_const(ctx, 0.7978845608028654)})});
  } else {
    inner = f64_erf(ctx, ctx.op("Mul", {x, f64_const(ctx, 0.7071067811865476)}));
  }
  return ctx.op("Mul", {ctx.op("Mul", {x, half}), ctx.op("Add", {inner, one})});
}

// silu(x) = x / (1 + exp(-x)) (PyTorch's formula). Not x * Sigmoid(x): ONNX Runtime fuses that into
// its float32-only QuickGelu and then cannot load a float64 model.
inline Value f64_silu(Ctx& ctx, const Value& x) {
  return ctx.op("Div", {x, ctx.op("Add", {ctx.op("Exp", {ctx.op("Neg", {x})}), f64_const(ctx, 1.0)})});
}

// Inverse trigonometric and hyperbolic functions (ONNX Runtime: float32-only Asin, Acos, Atan, Sinh,
// Cosh, Asinh, Acosh, Atanh).
inline Value f64_sinh(Ctx& ctx, const Value& x) {
  return ctx.op("Mul", {ctx.op("Sub", {ctx.op("Exp", {x}), ctx.op("Exp", {ctx.op("Neg", {x})})}), f64_const(ctx, 0.5)});
}
inline Value f64_cosh(Ctx& ctx, const Value& x) {
  return ctx.op("Mul", {ctx.op("Add", {ctx.op("Exp", {x}), ctx.op("Exp", {ctx.op("Neg", {x})})}), f64_const(ctx, 0.5)});
}
// asinh(x) = sign(x) * log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))
inline Value f64_asinh(Ctx& ctx, const Value& x) {
  Value a = ctx.op("Abs", {x}), one = f64_const(ctx, 1.0);
  Value x2 = ctx.op("Mul", {x, x});
  Value e = ctx.op("Add", {a, ctx.op("Div", {x2, ctx.op("Add", {one, ctx.op("Sqrt", {ctx.op("Add", {x2, one})})})})});
  return ctx.op("Mul", {ctx.op("Sign", {x}), f64_log1p_nonneg(ctx, e)});
}
// acosh(x) = log(x + sqrt(x^2 - 1)), x >= 1
inline Value f64_acosh(Ctx& ctx, const Value& x) {
  Value r = ctx.op("Sqrt", {ctx.op("Sub", {ctx.op("Mul", {x, x}), f64_const(ctx, 1.0)})});
  return ctx.op("Log", {ctx.op("Add", {x, r})});
}
// atanh(x) = sign(x) * 0.5 * log1p(2|x| / (1 - |x|))
inline Value f64_atanh(Ctx& ctx, const Value& x) {
  Value a = ctx.op("Abs", {x});
  Value e = ctx.op("Div", {ctx.op("Mul", {a, f64_const(ctx, 2.0)}), ctx.op("Sub", {f64_const(ctx, 1.0), a})});
  return ctx.op("Mul", {ctx.op("Mul", {ctx.op("Sign", {x}), f64_log1p_nonneg(ctx, e)}), f64_const(ctx, 0.5)});
}
// atan(x): |x| > 1 through pi/2 - atan(1/|x|); then twice atan(y) = 2 atan(y / (1 + sqrt(1 + y^2))),
// leaving |y| <= 0.2, where the Taylor series y - y^3/3 + y^5/5 - ... (13 terms, Horner) is exact
// to float64; the sign put back last.
inline Value f64_atan(Ctx& ctx, const Value& x) {
  Value one = f64_const(ctx, 1.0);
  Value a = ctx.op("Abs", {x});
  Value big = ctx.op("Greater", {a, one});
  Value y = ctx.op("Where", {big, ctx.op("Div", {one, a}), a});
  for (int k = 0; k < 2; ++k)
    y = ctx.op("Div", {y, ctx.op("Add", {one, ctx.op("Sqrt", {ctx.op("Add", {ctx.op("Mul", {y, y}), one})})})});
  Value y2 = ctx.op("Mul", {y, y});
  Value s = f64_const(ctx, (13 % 2 ? -1.0 : 1.0) / (2 * 13 + 1));
  for (int n = 12; n >= 0; --n)
    s = ctx.op("Add", {f64_const(ctx, (n % 2 ? -1.0 : 1.0) / (2 * n + 1)), ctx.op("Mul", {y2, s})});
  Value t = ctx.op("Mul", {ctx.op("Mul", {y, s}), f64_const(ctx, 4.0)});
  t = ctx.op("Where", {big, ctx.op("Sub", {f64_const(ctx, 1.5707963267948966), t}), t});
  return ctx.op("Mul", {ctx.op("Sign", {x}), t});
}
// asin(x) = atan(x / sqrt(1 - x^2)); acos(x) = 2 atan(sqrt((1 - x) / (1 + x)))
inline Value f64_asin(Ctx& ctx, const Value& x) {
  Value r = ctx.op("Sqrt", {ctx.op("Sub", {f64_const(ctx, 1.0), ctx.op("Mul", {x, x})})});
  return f64_atan(ctx, ctx.op("Div", {x, r}));
}
inline Value f64_acos(Ctx& ctx, const Value& x) {
  Value one = f64_const(ctx, 1.0);
  Value q = ctx.op("Sqrt", {ctx.op("Div", {ctx.op("Sub", {one, x}), ctx.op("Add", {one, x})})});
  return ctx.op("Mul", {f64_atan(ctx, q), f64_const(ctx, 2.0)});
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_FLOAT64_FORMS_HPP
