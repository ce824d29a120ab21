// RMS normalization: aten::rms_norm (PyTorch 2.4+, nn.RMSNorm / F.rms_norm) as PyTorch 2.6
// computes it, and RMSNormalization-23, which the core's RMSNorm pattern (t2o::rms_norm,
// core/src/prepare/rms_norm_pattern.cpp) also becomes. Below 23 the decomposition is the ONNX the
// pattern's ops give one by one. Header-only, SDK only.
//
// PyTorch 2.6 (aten/src/ATen/native/layer_norm.cpp, rms_norm_symint), for x of dtype T:
//   eps: the given value converted to T, or numeric_limits<T>::epsilon() (finfo(T).eps: 2^-10 for
//        float16, 2^-7 for bfloat16, not float's) when None;
//   xc = x in T's compute type (float for float16/bfloat16);
//   y  = (xc * rsqrt(mean(xc^2, last k dims, keepdim) + eps)).to(T), then * weight (promoting).
#ifndef TORCH2ONNX_PACK_COMMON_RMS_NORM_HPP
#define TORCH2ONNX_PACK_COMMON_RMS_NORM_HPP

#include <torch2onnx/plugin.hpp>

#include <cfloat>
#include <cmath>
#include <vector>

#include "constants.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

// x (a float) rounded to the nearest value with `bits` significant bits and smallest normal
// exponent `min_exp` (frexp's), ties to even: float16 (11, -13), bfloat16 (8, -125).
inline double round_to_bits(float x, int bits, int min_exp) {
  if (!std::isfinite(x) || x == 0.0f) return x;
  int e = 0;
  std::frexp(std::fabs((double)x), &e);
  const double ulp = std::ldexp(1.0, std::max(e, min_exp) - bits);
  return std::copysign(std::nearbyint(std::fabs((double)x) / ulp) * ulp, (double)x);
}

// PyTorch's eps for x of dtype dt: `eps` held in dt (through float for the half types, as a
// c10::Half/BFloat16 is made), or dt's machine epsilon when eps is None.
inline double rms_norm_eps(t2o_dtype dt, bool given, double eps) {
  switch (dt) {
    case T2O_DTYPE_FLOAT16: return given ? round_to_bits((float)eps, 11, -13) : std::ldexp(1.0, -10);
    case T2O_DTYPE_BFLOAT16: return given ? round_to_bits((float)eps, 8, -125) : std::ldexp(1.0, -7);
    case T2O_DTYPE_DOUBLE: return given ? eps : DBL_EPSILON;
    default: return given ? (double)(float)eps : (double)FLT_EPSILON;
  }
}

struct RmsNormArgs {
  Value x, weight;  // weight invalid when None
  int64_t k = 0;    // the number of normalized (last) dims
  double eps = 0;   // as PyTorch uses it (rms_norm_eps)
  t2o_dtype dt = T2O_DTYPE_UNDEFINED;
};

// rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None)
inline RmsNormArgs rms_norm_args(Ctx& ctx) {
  RmsNormArgs a;
  a.x = ctx.input(0);
  a.dt = a.x.dtype();
  if (!is_float_dtype(a.dt)) fail(ctx.kind() + ": input must be floating point");
  Value shape_arg = ctx.input(1);
  if (!all_const(shape_arg)) unsupported(ctx.kind() + ": argument 'normalized_shape' is computed at run time");
  const std::vector<int64_t> shape = shape_arg.to_ints();
  const int64_t r = known_rank(ctx, a.x);
  a.k = (int64_t)shape.size();
  if (a.k == 0 || a.k > r)
    fail(ctx.kind() + ": normalized_shape " + str(shape) + " for a rank-" + std::to_string(r) + " input");
  for (int64_t i = 0; i < a.k; ++i) {
    const int64_t d = a.x.dim((int32_t)(r - a.k + i));
    if (d >= 0 && d != shape[(size_t)i])
      fail(ctx.kind() + ": normalized_shape " + str(shape) + " does not match the input's last dims " +
           str(a.x.dims()));
  }
  a.weight = opt_input(ctx, 2);
  Value eps = opt_input(ctx, 3);
  a.eps = rms_norm_eps(a.dt, eps.valid(), eps.valid() ? eps.to_float() : 0.0);
  return a;
}

// The decomposition: the ONNX the RMSNorm pattern's ops convert to one by one (Cast in for the
// half types, Pow, ReduceMean, Add, Sqrt + Reciprocal, Mul, Cast back, Mul by the weight).
inline Value rms_norm_decomposed(Ctx& ctx, const RmsNormArgs& a) {
  const int64_t r = a.x.rank();
  const bool half = a.dt == T2O_DTYPE_FLOAT16 || a.dt == T2O_DTYPE_BFLOAT16;
  const t2o_dtype ct = half ? T2O_DTYPE_FLOAT : a.dt;
  Value xc = cast_to(ctx, ctx.as_onnx(a.x), ct);
  std::vector<int64_t> axes;
  for (int64_t i = r - a.k; i < r; ++i) axes.push_back(i);
  Value mean = reduce(ctx, "ReduceMean", ctx.op("Pow", {xc, ctx.scalar(ct, 2.0)}), axes, true);
  Value inv = ctx.op("Reciprocal", {ctx.op("Sqrt", {ctx.op("Add", {mean, ctx.scalar(ct, a.eps)})})});
  Value y = typed(ctx, ctx.op("Mul", {xc, inv}), ct);
  y = cast_to(ctx, y, a.dt);
  if (!a.weight.valid()) return y;
  const t2o_dtype out = output_dtype(ctx, 0, a.dt);  // the weight's dtype may promote
  return ctx.op("Mul", {cast_to(ctx, y, out), cast_to(ctx, ctx.as_onnx(a.weight), out)});
}

// RMSNormalization-23 over the last k dims with float32 statistics (stash_type 1), the cast back
// to x's dtype before the scale: PyTorch's rms_norm for float32, float16 and bfloat16 inputs. A
// missing weight becomes ones (the Scale input is required), which needs static normalized dims.
inline Value rms_normalization(Ctx& ctx, const Value& x, Value weight, int64_t k, double eps) {
  const int32_t rank = x.rank();
  if (!weight.valid() || weight.is_none()) {
    std::vector<int64_t> normalized;
    int64_t count = 1;
    for (int32_t i = rank - (int32_t)k; i < rank; ++i) {
      const int64_t d = x.dim(i);
      if (d < 0) unsupported(ctx.kind() + ": no weight and a dynamic normalized dim (the scale needs a static shape)");
      normalized.push_back(d);
      count *= d;
    }
    weight = constant_of(ctx, x.dtype(), normalized, std::vector<double>((size_t)count, 1.0));
  }
  return ctx.op("RMSNormalization", {x, weight},
                {Attr::i("axis", -k), Attr::f("epsilon", eps), Attr::i("stash_type", T2O_DTYPE_FLOAT)});
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_RMS_NORM_HPP
