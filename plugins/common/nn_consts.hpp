// Constant tensors for nn symbolics: filled tensors and float tables in a given element type.
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_NN_CONSTS_HPP
#define TORCH2ONNX_PACK_COMMON_NN_CONSTS_HPP

#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "util.hpp"

namespace t2o {
namespace pack {

// A constant of shape `dims` holding `values` (row-major) in element type dt: float and double
// are written directly, half types are made in float and cast (no half arithmetic in packs).
inline Value float_table(Ctx& ctx, const std::vector<int64_t>& dims, const std::vector<double>& values, t2o_dtype dt) {
  if (dt == T2O_DTYPE_DOUBLE) return ctx.tensor(dt, dims, values.data(), values.size() * sizeof(double));
  std::vector<float> f(values.begin(), values.end());
  Value t = ctx.tensor(T2O_DTYPE_FLOAT, dims, f.data(), f.size() * sizeof(float));
  if (dt == T2O_DTYPE_FLOAT) return t;
  if (dt == T2O_DTYPE_FLOAT16 || dt == T2O_DTYPE_BFLOAT16) return ctx.op("Cast", {t}, {Attr::i("to", dt)});
  unsupported(ctx.kind() + ": element type " + std::to_string((int)dt) + " (expected a floating-point tensor)");
}

// A constant of shape `dims` filled with v in element type dt (e.g. a missing norm weight/bias).
inline Value filled(Ctx& ctx, const std::vector<int64_t>& dims, double v, t2o_dtype dt) {
  int64_t n = 1;
  for (auto d : dims) n *= d;
  return float_table(ctx, dims, std::vector<double>((size_t)n, v), dt);
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_NN_CONSTS_HPP
