// Shared by rotary_embedding.cpp and attention.cpp: reading constant attribute arguments, dtype
// helpers for computing half types in float (as ONNX Runtime's kernels and libtorch2onnx_ops do).
#ifndef TORCH2ONNX_ONNX_OPS_ROPE_ATTENTION_HPP
#define TORCH2ONNX_ONNX_OPS_ROPE_ATTENTION_HPP

#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "common/util.hpp"
#include "common/values.hpp"

#include <string>

namespace t2o {
namespace onnx_ops {

inline int64_t const_int(Ctx& ctx, int32_t index, const char* name) {
  Value v = ctx.input(index);
  if (!v.is_const()) unsupported(ctx.kind() + ": " + name + " must be a constant");
  return v.to_int();
}

inline double const_float(Ctx& ctx, int32_t index, const char* name) {
  Value v = ctx.input(index);
  if (!v.is_const()) unsupported(ctx.kind() + ": " + name + " must be a constant");
  return v.to_float();
}

inline bool is_half(t2o_dtype dt) { return dt == T2O_DTYPE_FLOAT16 || dt == T2O_DTYPE_BFLOAT16; }

// The dtype the decompositions compute in: float for half types, else the input's.
inline t2o_dtype compute_dtype(t2o_dtype dt) { return is_half(dt) ? T2O_DTYPE_FLOAT : dt; }

inline Value cast_if(Ctx& ctx, const Value& x, t2o_dtype from, t2o_dtype to) {
  if (from == to) return x;
  return ctx.op("Cast", {x}, {Attr::i("to", to)});
}

inline bool native_dtype(t2o_dtype dt) {  // the T of RotaryEmbedding-23 / Attention-23
  return dt == T2O_DTYPE_FLOAT || dt == T2O_DTYPE_FLOAT16 || dt == T2O_DTYPE_BFLOAT16;
}

}  // namespace onnx_ops
}  // namespace t2o

#endif
