// Float helpers ONNX lacks, shared by the elementwise math (opset9/binary_math.cpp) and the complex
// parts (opset9/complex_parts.cpp: angle): signbit, atan2 (equality below opset 11 is forms.hpp's equal). Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_ATAN2_HPP
#define TORCH2ONNX_PACK_COMMON_ATAN2_HPP

#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "forms.hpp"  // equal(): Equal on floats from opset 11
#include "util.hpp"

namespace t2o {
namespace pack {

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
