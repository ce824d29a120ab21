// PyTorch's type promotion (torch.promote_types, torch.result_type), implemented once for every
// pack: arithmetic, comparisons, where, clamp, ... compute in result_type(operands).
//
// result_type keeps three running results, as c10's ResultTypeState does: tensors with dims,
// 0-d tensors, and wrapped numbers (Python scalars: bool, int, float, complex). A 0-d tensor or a
// number changes the result only when its category (bool < int < float < complex) is higher
// than the dimensioned tensors'; a number then stands for the default dtype of its category
// (int64, the default float dtype: float32 or, for a model saved under
// torch.set_default_dtype(torch.float64), float64 (Ctx::default_dtype), and its complex twin). tests/unit/test_promote.cpp checks both functions against a table
// made with torch.result_type.
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_PROMOTE_HPP
#define TORCH2ONNX_PACK_COMMON_PROMOTE_HPP

#include <torch2onnx/plugin.hpp>

#include <vector>

#include "util.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

// 0 bool, 1 integer, 2 floating point, 3 complex.
inline int dtype_category(t2o_dtype d) {
  if (d == T2O_DTYPE_BOOL) return 0;
  if (d == T2O_DTYPE_COMPLEX64 || d == T2O_DTYPE_COMPLEX128) return 3;
  if (d == T2O_DTYPE_FLOAT16 || d == T2O_DTYPE_BFLOAT16 || d == T2O_DTYPE_FLOAT || d == T2O_DTYPE_DOUBLE) return 2;
  return 1;
}

inline int dtype_bits(t2o_dtype d) {
  switch (d) {
    case T2O_DTYPE_BOOL: case T2O_DTYPE_UINT8: case T2O_DTYPE_INT8: return 8;
    case T2O_DTYPE_INT16: case T2O_DTYPE_UINT16: case T2O_DTYPE_FLOAT16: case T2O_DTYPE_BFLOAT16: return 16;
    case T2O_DTYPE_INT32: case T2O_DTYPE_UINT32: case T2O_DTYPE_FLOAT: return 32;
    case T2O_DTYPE_COMPLEX128: return 128;
    default: return 64;  // int64, uint64, double, complex64
  }
}

// The complex dtype whose parts have float dtype f (float16 has no ONNX complex twin: complex64).
inline t2o_dtype complex_of(t2o_dtype f) { return f == T2O_DTYPE_DOUBLE ? T2O_DTYPE_COMPLEX128 : T2O_DTYPE_COMPLEX64; }

// torch.promote_types for two dtypes (UNDEFINED is skipped).
inline t2o_dtype promote_types(t2o_dtype a, t2o_dtype b) {
  if (a == b || b == T2O_DTYPE_UNDEFINED) return a;
  if (a == T2O_DTYPE_UNDEFINED) return b;
  int ca = dtype_category(a), cb = dtype_category(b);
  if (ca == 3 || cb == 3) {
    // complex with a double (or complex128) keeps double precision.
    bool wide = a == T2O_DTYPE_COMPLEX128 || b == T2O_DTYPE_COMPLEX128 || a == T2O_DTYPE_DOUBLE || b == T2O_DTYPE_DOUBLE;
    return wide ? T2O_DTYPE_COMPLEX128 : T2O_DTYPE_COMPLEX64;
  }
  if (ca != cb) return ca > cb ? a : b;
  if ((a == T2O_DTYPE_FLOAT16 && b == T2O_DTYPE_BFLOAT16) || (a == T2O_DTYPE_BFLOAT16 && b == T2O_DTYPE_FLOAT16))
    return T2O_DTYPE_FLOAT;
  if ((a == T2O_DTYPE_UINT8 && b == T2O_DTYPE_INT8) || (a == T2O_DTYPE_INT8 && b == T2O_DTYPE_UINT8))
    return T2O_DTYPE_INT16;
  if (a == T2O_DTYPE_UINT8) return b;  // uint8 with a wider signed int
  if (b == T2O_DTYPE_UINT8) return a;
  return dtype_bits(a) >= dtype_bits(b) ? a : b;
}

// How an operand takes part in promotion.
enum class Operand { Tensor, ZeroDim, Number };

// c10's combine_categories: `higher` (a higher-priority state) against `lower`.
inline t2o_dtype combine_categories(t2o_dtype higher, t2o_dtype lower) {
  if (higher == T2O_DTYPE_UNDEFINED) return lower;
  if (lower == T2O_DTYPE_UNDEFINED) return higher;
  int ch = dtype_category(higher), cl = dtype_category(lower);
  if (ch == 3) return higher;
  if (cl == 3) return ch == 2 ? complex_of(higher) : lower;
  if (ch == 2) return higher;
  if (higher == T2O_DTYPE_BOOL || cl == 2) return promote_types(higher, lower);
  return higher;
}

// The dtype a Python number of `dtype`'s category stands for (torch's defaults; default_float is
// torch.get_default_dtype()).
inline t2o_dtype number_dtype(t2o_dtype dtype, t2o_dtype default_float = T2O_DTYPE_FLOAT) {
  switch (dtype_category(dtype)) {
    case 0: return T2O_DTYPE_BOOL;
    case 1: return T2O_DTYPE_INT64;
    case 2: return default_float;
    default: return complex_of(default_float);
  }
}

// torch.result_type over (form, dtype) operands; for a Number, dtype names its category.
inline t2o_dtype result_type(const std::vector<std::pair<Operand, t2o_dtype>>& operands,
                             t2o_dtype default_float = T2O_DTYPE_FLOAT) {
  t2o_dtype dim_t = T2O_DTYPE_UNDEFINED, zero_t = T2O_DTYPE_UNDEFINED, num_t = T2O_DTYPE_UNDEFINED;
  for (const auto& [form, dtype] : operands) {
    if (dtype == T2O_DTYPE_UNDEFINED) continue;
    if (form == Operand::Tensor) dim_t = promote_types(dim_t, dtype);
    else if (form == Operand::ZeroDim) zero_t = promote_types(zero_t, dtype);
    else num_t = promote_types(num_t, number_dtype(dtype, default_float));
  }
  return combine_categories(dim_t, combine_categories(zero_t, num_t));
}

// How a TorchScript value takes part: tensors by rank, numbers (int/float/bool, constant or
// computed at run time) as wrapped numbers. UNDEFINED for None and non-numbers.
inline std::pair<Operand, t2o_dtype> operand_of(const Value& v) {
  if (!v.valid()) return {Operand::Number, T2O_DTYPE_UNDEFINED};
  switch (v.kind()) {
    case T2O_KIND_TENSOR: return {v.rank() == 0 ? Operand::ZeroDim : Operand::Tensor, v.dtype()};
    case T2O_KIND_INT: return {Operand::Number, T2O_DTYPE_INT64};
    case T2O_KIND_BOOL: return {Operand::Number, T2O_DTYPE_BOOL};
    case T2O_KIND_FLOAT: return {Operand::Number, T2O_DTYPE_FLOAT};
    default: return {Operand::Number, T2O_DTYPE_UNDEFINED};
  }
}

// The model's default float dtype, asked of the call the values belong to (FLOAT without one).
inline t2o_dtype default_float_of(const std::vector<Value>& values) {
  for (const Value& v : values)
    if (v.ctx()) return v.ctx()->default_dtype();
  return T2O_DTYPE_FLOAT;
}

// torch.result_type over TorchScript values (tensors, 0-d tensors, Python numbers; None skipped).
inline t2o_dtype result_type(const std::vector<Value>& values) {
  std::vector<std::pair<Operand, t2o_dtype>> operands;
  for (const Value& v : values) operands.push_back(operand_of(v));
  return result_type(operands, default_float_of(values));
}

// The dtype two operands are compared in (==, <, torch.equal): PyTorch's result_type, then widened to
// one that ONNX Runtime's comparison kernels take (no int8/int16/uint8/bool/float16 kernels for
// Less/Greater).
inline t2o_dtype comparison_dtype(const Value& a, const Value& b) {
  t2o_dtype dt = result_type({a, b});
  if (dt == T2O_DTYPE_FLOAT16 || dt == T2O_DTYPE_BFLOAT16) return T2O_DTYPE_FLOAT;
  if (dt == T2O_DTYPE_BOOL || dt == T2O_DTYPE_INT8 || dt == T2O_DTYPE_INT16 || dt == T2O_DTYPE_UINT8)
    return T2O_DTYPE_INT32;
  return dt;
}

// The dtype of ops that give floats for bool/int operands (true division, float functions): the
// result type, or the default float dtype (float32, or float64 under
// torch.set_default_dtype(torch.float64)) when that is bool or an integer.
inline t2o_dtype float_result_type(const std::vector<Value>& values) {
  t2o_dtype t = result_type(values);
  return dtype_category(t) < 2 ? default_float_of(values) : t;
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_PROMOTE_HPP
