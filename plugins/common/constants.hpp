// Constant tensors of any element type from numbers computed in a pack (arange, fill values).
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_CONSTANTS_HPP
#define TORCH2ONNX_PACK_COMMON_CONSTANTS_HPP

#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <vector>

#include "util.hpp"

namespace t2o {
namespace pack {

namespace detail {
template <typename T>
Value make_const(Ctx& ctx, t2o_dtype dt, const std::vector<int64_t>& dims, const std::vector<double>& f,
                 const std::vector<int64_t>& i) {
  std::vector<T> data;
  size_t n = f.empty() ? i.size() : f.size();
  data.reserve(n);
  for (size_t k = 0; k < n; ++k) data.push_back(f.empty() ? (T)i[k] : (T)f[k]);
  return ctx.tensor(dt, dims, data.data(), data.size() * sizeof(T));
}
}  // namespace detail

// A constant of dtype dt and shape dims holding `floats` (or, when floats is empty, `ints`, exact
// for int64). Float16/bfloat16 are made in float and cast (an ONNX node, not an initializer).
inline Value constant_of(Ctx& ctx, t2o_dtype dt, const std::vector<int64_t>& dims, const std::vector<double>& floats,
                         const std::vector<int64_t>& ints = {}) {
  switch (dt) {
    case T2O_DTYPE_FLOAT: return detail::make_const<float>(ctx, dt, dims, floats, ints);
    case T2O_DTYPE_DOUBLE: return detail::make_const<double>(ctx, dt, dims, floats, ints);
    case T2O_DTYPE_INT64: return detail::make_const<int64_t>(ctx, dt, dims, floats, ints);
    case T2O_DTYPE_INT32: return detail::make_const<int32_t>(ctx, dt, dims, floats, ints);
    case T2O_DTYPE_INT16: return detail::make_const<int16_t>(ctx, dt, dims, floats, ints);
    case T2O_DTYPE_INT8: return detail::make_const<int8_t>(ctx, dt, dims, floats, ints);
    case T2O_DTYPE_UINT8: return detail::make_const<uint8_t>(ctx, dt, dims, floats, ints);
    case T2O_DTYPE_BOOL: {
      std::vector<uint8_t> data;
      size_t n = floats.empty() ? ints.size() : floats.size();
      for (size_t k = 0; k < n; ++k) data.push_back(floats.empty() ? ints[k] != 0 : floats[k] != 0.0);
      return ctx.tensor(dt, dims, data.data(), data.size());
    }
    case T2O_DTYPE_FLOAT16:
    case T2O_DTYPE_BFLOAT16: {
      Value f = detail::make_const<float>(ctx, T2O_DTYPE_FLOAT, dims, floats, ints);
      return ctx.op("Cast", {f}, {Attr::i("to", dt)});
    }
    default: unsupported(ctx.kind() + ": constant of element type " + std::to_string((int)dt));
  }
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_CONSTANTS_HPP
