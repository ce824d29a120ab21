// Float helpers ONNX lacks, shared by the elementwise math (opset9/binary_math.cpp) and the complex
// parts (opset9/complex_parts.cpp: angle): equality below opset 11, signbit, atan2. Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_ATAN2_HPP
#define TORCH2ONNX_PACK_COMMON_ATAN2_HPP

#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "util.hpp"

namespace t2o {
namespace pack {

// a == b; float Equal needs opset 11: below, a == b is written as not(a < b or a > b).
inline Value equal(Ctx& ctx, const Value& a, const Value& b, t2o_dtype dt) {
  if (ctx.opset() >= 11 || !is_float_dtype(dt)) return ctx.op("Equal", {a, b});
  return ctx.op("Not", {ctx.op("Or", {ctx.op("Less", {a, b}), ctx.op("Greater", {a, b})})});
}

// signbit of a float tensor: x < 0, or -0 (whose reciprocal is -inf).
inline Value signbit(Ctx& ctx, const Value& x, t2o_dtype dt) {
  Value zero = ctx.scalar(dt, 0.0);
  return ctx.op("Or", {ctx.op("Less", {x, zero}), ctx.op("Less", {ctx.op("Reciprocal", {x}), zero})});
}

// atan2(y, x): atan(y / x), moved by +-pi (the sign of y) when x is negative; with signed zeros
// as PyTorch: atan2(+-0, x) is +-0 for x >= +0 and +-pi for x <= -0 (y / x is NaN there).
inline Value atan2(Ctx& ctx, const Value& y, const Value& x, t2o_dtype dt) {
  Value zero = ctx.scalar(dt, 0.0);
  Value q = ctx.op("Atan", {ctx.op("Div", {y, x})});  // x = +-0: +-inf -> +-pi/2
  Value x_neg = signbit(ctx, x, dt);
  Value shift = ctx.op("Where", {signbit(ctx, y, dt), ctx.scalar(dt, -M_PI), ctx.scalar(dt, M_PI)});
  Value r = ctx.op("Where", {x_neg, ctx.op("Add", {q, shift}), q});
  Value both_zero = ctx.op("And", {equal(ctx, x, zero, dt), equal(ctx, y, zero, dt)});
  return ctx.op("Where", {both_zero, ctx.op("Where", {x_neg, shift, y}), r});
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_ATAN2_HPP
