// Elementwise math: exp, exp2, expm1, log, log2, log10, log1p, sqrt, rsqrt, reciprocal, square,
// abs, sign, sgn, floor, ceil, trunc, fix, frac, sin, cos, tan, asin, acos, atan, sinh, cosh,
// asinh, acosh, atanh, erf, erfc, deg2rad, rad2deg, logit, positive (+ in-place variants).
// Floating functions promote integer inputs to the output's dtype (float32) first; rounding
// functions are the identity on integers. ONNX has no Trunc/Expm1/Log1p/...: they are composed
// (trunc(x) = sign(x) * floor(|x|)). aten::round needs Round (opset 11): opset11/round.cpp.
#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "common/float64_forms.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// x as an ONNX tensor of the output's floating dtype.
Value float_input(Ctx& ctx, t2o_dtype* dt) {
  Value x = ctx.input(0);
  *dt = output_dtype(ctx, 0, is_float_dtype(x.dtype()) ? x.dtype() : T2O_DTYPE_FLOAT);
  if (!is_float_dtype(*dt)) unsupported(ctx.kind() + ": output element type " + std::to_string((int)*dt));
  return to_dtype(ctx, x, *dt);
}

void float_unary(Ctx& ctx, const char* op_type) {
  t2o_dtype dt;
  Value x = float_input(ctx, &dt);
  ctx.set_output(0, ctx.op(op_type, {x}));
}

Value k(Ctx& ctx, t2o_dtype dt, double v) { return ctx.scalar(dt, v); }

// op(x) with the float formula `body`; integers give x unchanged (floor/ceil/trunc of an int).
template <typename Fn>
void rounding(Ctx& ctx, Fn body) {
  Value x = ctx.input(0);
  if (!is_float_dtype(x.dtype())) return ctx.set_output(0, x);
  ctx.set_output(0, body(x));
}

Value trunc(Ctx& ctx, const Value& x) {
  return ctx.op("Mul", {ctx.op("Sign", {x}), ctx.op("Floor", {ctx.op("Abs", {x})})});
}

// Composite float functions: f(x, dt).
template <typename Fn>
void composite(Ctx& ctx, Fn body) {
  t2o_dtype dt;
  Value x = float_input(ctx, &dt);
  ctx.set_output(0, body(x, dt));
}

void same_type_unary(Ctx& ctx, const char* op_type) { ctx.set_output(0, ctx.op(op_type, {ctx.input(0)})); }

}  // namespace

#define FLOAT_UNARY(NAME, OP)                                        \
  T2O_SYMBOLIC("aten::" NAME, 9) { float_unary(ctx, OP); }          \
  T2O_SYMBOLIC("aten::" NAME "_", 9) { float_unary(ctx, OP); }

FLOAT_UNARY("exp", "Exp")
FLOAT_UNARY("log", "Log")
FLOAT_UNARY("sqrt", "Sqrt")
FLOAT_UNARY("reciprocal", "Reciprocal")
FLOAT_UNARY("sin", "Sin")
FLOAT_UNARY("cos", "Cos")

#define COMPOSITE(NAME, BODY)                                                                           \
  T2O_SYMBOLIC("aten::" NAME, 9) { composite(ctx, [&](const Value& x, t2o_dtype dt) -> Value { BODY }); } \
  T2O_SYMBOLIC("aten::" NAME "_", 9) { composite(ctx, [&](const Value& x, t2o_dtype dt) -> Value { BODY }); }

COMPOSITE("rsqrt", return ctx.op("Reciprocal", {ctx.op("Sqrt", {x})});)
COMPOSITE("log2", return ctx.op("Div", {ctx.op("Log", {x}), k(ctx, dt, std::log(2.0))});)
COMPOSITE("log10", return ctx.op("Div", {ctx.op("Log", {x}), k(ctx, dt, std::log(10.0))});)
COMPOSITE("log1p", return ctx.op("Log", {ctx.op("Add", {x, k(ctx, dt, 1.0)})});)
COMPOSITE("expm1", return ctx.op("Sub", {ctx.op("Exp", {x}), k(ctx, dt, 1.0)});)
COMPOSITE("exp2", return ctx.op("Pow", {k(ctx, dt, 2.0), x});)
// ONNX Runtime runs Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh on float32 only: float64
// takes the forms of common/float64_forms.hpp (tan = sin / cos).
COMPOSITE("tan", return needs_float64_form(dt) ? ctx.op("Div", {ctx.op("Sin", {x}), ctx.op("Cos", {x})}) : ctx.op("Tan", {x});)
COMPOSITE("asin", return needs_float64_form(dt) ? f64_asin(ctx, x) : ctx.op("Asin", {x});)
COMPOSITE("acos", return needs_float64_form(dt) ? f64_acos(ctx, x) : ctx.op("Acos", {x});)
COMPOSITE("atan", return needs_float64_form(dt) ? f64_atan(ctx, x) : ctx.op("Atan", {x});)
COMPOSITE("sinh", return needs_float64_form(dt) ? f64_sinh(ctx, x) : ctx.op("Sinh", {x});)
COMPOSITE("cosh", return needs_float64_form(dt) ? f64_cosh(ctx, x) : ctx.op("Cosh", {x});)
COMPOSITE("asinh", return needs_float64_form(dt) ? f64_asinh(ctx, x) : ctx.op("Asinh", {x});)
COMPOSITE("acosh", return needs_float64_form(dt) ? f64_acosh(ctx, x) : ctx.op("Acosh", {x});)
COMPOSITE("atanh", return needs_float64_form(dt) ? f64_atanh(ctx, x) : ctx.op("Atanh", {x});)
COMPOSITE("arcsin", return needs_float64_form(dt) ? f64_asin(ctx, x) : ctx.op("Asin", {x});)
COMPOSITE("arccos", return needs_float64_form(dt) ? f64_acos(ctx, x) : ctx.op("Acos", {x});)
COMPOSITE("arctan", return needs_float64_form(dt) ? f64_atan(ctx, x) : ctx.op("Atan", {x});)
COMPOSITE("arcsinh", return needs_float64_form(dt) ? f64_asinh(ctx, x) : ctx.op("Asinh", {x});)
COMPOSITE("arccosh", return needs_float64_form(dt) ? f64_acosh(ctx, x) : ctx.op("Acosh", {x});)
COMPOSITE("arctanh", return needs_float64_form(dt) ? f64_atanh(ctx, x) : ctx.op("Atanh", {x});)
// ONNX Runtime's Erf is float32 only: float64 takes the series of common/float64_forms.hpp
COMPOSITE("erf", return needs_float64_form(dt) ? f64_erf(ctx, x) : ctx.op("Erf", {x});)
COMPOSITE("erfc", return ctx.op("Sub", {k(ctx, dt, 1.0), needs_float64_form(dt) ? f64_erf(ctx, x) : ctx.op("Erf", {x})});)
COMPOSITE("deg2rad", return ctx.op("Mul", {x, k(ctx, dt, M_PI / 180.0)});)
COMPOSITE("rad2deg", return ctx.op("Mul", {x, k(ctx, dt, 180.0 / M_PI)});)

// logit(self, eps=None) = log(z / (1 - z)), z = clamp(x, eps, 1 - eps) when eps is given.
T2O_SYMBOLIC("aten::logit", 9) {
  composite(ctx, [&](const Value& x, t2o_dtype dt) -> Value {
    Value z = x;
    Value eps = opt_input(ctx, 1);
    if (eps.valid()) {
      if (!eps.is_const()) unsupported("aten::logit: argument 'eps' must be constant");
      double e = eps.to_float();
      z = ctx.op("Min", {ctx.op("Max", {x, k(ctx, dt, e)}), k(ctx, dt, 1.0 - e)});
    }
    return ctx.op("Log", {ctx.op("Div", {z, ctx.op("Sub", {k(ctx, dt, 1.0), z})})});
  });
}

// aten::abs (which also takes complex values): complex_parts.cpp
T2O_SYMBOLIC("aten::abs_", 9) { same_type_unary(ctx, "Abs"); }
T2O_SYMBOLIC("aten::absolute", 9) { same_type_unary(ctx, "Abs"); }
T2O_SYMBOLIC("aten::sign", 9) { same_type_unary(ctx, "Sign"); }
T2O_SYMBOLIC("aten::sign_", 9) { same_type_unary(ctx, "Sign"); }
T2O_SYMBOLIC("aten::sgn", 9) { same_type_unary(ctx, "Sign"); }
T2O_SYMBOLIC("aten::positive", 9) { ctx.set_output(0, ctx.input(0)); }

T2O_SYMBOLIC("aten::square", 9) {
  Value x = ctx.input(0);
  if (x.dtype() == T2O_DTYPE_BOOL) return ctx.set_output(0, cast_to(ctx, x, output_dtype(ctx, 0, T2O_DTYPE_INT64)));
  ctx.set_output(0, ctx.op("Mul", {x, x}));
}

T2O_SYMBOLIC("aten::floor", 9) { rounding(ctx, [&](const Value& x) { return ctx.op("Floor", {x}); }); }
T2O_SYMBOLIC("aten::floor_", 9) { rounding(ctx, [&](const Value& x) { return ctx.op("Floor", {x}); }); }
T2O_SYMBOLIC("aten::ceil", 9) { rounding(ctx, [&](const Value& x) { return ctx.op("Ceil", {x}); }); }
T2O_SYMBOLIC("aten::ceil_", 9) { rounding(ctx, [&](const Value& x) { return ctx.op("Ceil", {x}); }); }
T2O_SYMBOLIC("aten::trunc", 9) { rounding(ctx, [&](const Value& x) { return trunc(ctx, x); }); }
T2O_SYMBOLIC("aten::trunc_", 9) { rounding(ctx, [&](const Value& x) { return trunc(ctx, x); }); }
T2O_SYMBOLIC("aten::fix", 9) { rounding(ctx, [&](const Value& x) { return trunc(ctx, x); }); }
T2O_SYMBOLIC("aten::fix_", 9) { rounding(ctx, [&](const Value& x) { return trunc(ctx, x); }); }
// frac(x) = x - trunc(x) (floats only in PyTorch)
T2O_SYMBOLIC("aten::frac", 9) { rounding(ctx, [&](const Value& x) { return ctx.op("Sub", {x, trunc(ctx, x)}); }); }
T2O_SYMBOLIC("aten::frac_", 9) { rounding(ctx, [&](const Value& x) { return ctx.op("Sub", {x, trunc(ctx, x)}); }); }
