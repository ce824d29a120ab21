// PyTorch's type promotion (torch.result_type) for ops whose output dtype does not tell the
// operands' common dtype (comparisons return bool, where/clamp may see mixed operands).
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_PROMOTE_HPP
#define TORCH2ONNX_PACK_COMMON_PROMOTE_HPP

#include <torch2onnx/plugin.hpp>

#include <vector>

#include "util.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

// 0 bool, 1 integer, 2 floating point (complex is not handled by the packs).
inline int dtype_category(t2o_dtype d) {
  if (d == T2O_DTYPE_BOOL) return 0;
  if (is_float_dtype(d)) return 2;
  return 1;
}

inline int dtype_bits(t2o_dtype d) {
  switch (d) {
    case T2O_DTYPE_BOOL: case T2O_DTYPE_UINT8: case T2O_DTYPE_INT8: return 8;
    case T2O_DTYPE_INT16: case T2O_DTYPE_UINT16: case T2O_DTYPE_FLOAT16: case T2O_DTYPE_BFLOAT16: return 16;
    case T2O_DTYPE_INT32: case T2O_DTYPE_UINT32: case T2O_DTYPE_FLOAT: return 32;
    default: return 64;
  }
}

// torch.promote_types for two dtypes.
inline t2o_dtype promote_types(t2o_dtype a, t2o_dtype b) {
  if (a == b || b == T2O_DTYPE_UNDEFINED) return a;
  if (a == T2O_DTYPE_UNDEFINED) return b;
  int ca = dtype_category(a), cb = dtype_category(b);
  if (ca != cb) return ca > cb ? a : b;
  if ((a == T2O_DTYPE_FLOAT16 && b == T2O_DTYPE_BFLOAT16) || (a == T2O_DTYPE_BFLOAT16 && b == T2O_DTYPE_FLOAT16))
    return T2O_DTYPE_FLOAT;
  if ((a == T2O_DTYPE_UINT8 && b == T2O_DTYPE_INT8) || (a == T2O_DTYPE_INT8 && b == T2O_DTYPE_UINT8))
    return T2O_DTYPE_INT16;
  if (a == T2O_DTYPE_UINT8) return b;  // uint8 with a wider signed int
  if (b == T2O_DTYPE_UINT8) return a;
  return dtype_bits(a) >= dtype_bits(b) ? a : b;
}

// torch.result_type over operands (tensors, 0-d tensors, Python numbers; None is skipped).
// Tensors with dims win; a 0-d tensor or a number only changes the result when its category
// (bool < int < float) is higher, and a number then gives the default dtype (int64 / float32).
inline t2o_dtype result_type(const std::vector<Value>& operands) {
  t2o_dtype dim_t = T2O_DTYPE_UNDEFINED, zero_t = T2O_DTYPE_UNDEFINED, num_t = T2O_DTYPE_UNDEFINED;
  for (const Value& v : operands) {
    if (!v.valid() || v.is_none()) continue;
    t2o_kind k = v.kind();
    if (k == T2O_KIND_TENSOR) {
      if (v.rank() == 0) zero_t = promote_types(zero_t, v.dtype());
      else dim_t = promote_types(dim_t, v.dtype());
    } else if (k == T2O_KIND_INT) {
      num_t = promote_types(num_t, T2O_DTYPE_INT64);
    } else if (k == T2O_KIND_BOOL) {
      num_t = promote_types(num_t, T2O_DTYPE_BOOL);
    } else if (k == T2O_KIND_FLOAT) {
      num_t = promote_types(num_t, T2O_DTYPE_FLOAT);
    }
  }
  t2o_dtype r = dim_t;
  if (zero_t != T2O_DTYPE_UNDEFINED && (r == T2O_DTYPE_UNDEFINED || dtype_category(zero_t) > dtype_category(r)))
    r = zero_t;
  if (num_t != T2O_DTYPE_UNDEFINED && (r == T2O_DTYPE_UNDEFINED || dtype_category(num_t) > dtype_category(r)))
    r = num_t;
  return r;
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_PROMOTE_HPP
