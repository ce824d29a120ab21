// Shared helpers for op packs: axes, int-list arguments, dtypes, messages.
// Header-only, SDK only (never torch/, onnx/ or protobuf headers).
#ifndef TORCH2ONNX_PACK_COMMON_UTIL_HPP
#define TORCH2ONNX_PACK_COMMON_UTIL_HPP

#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace t2o {
namespace pack {

// "[1, 2, 3]" for messages.
inline std::string str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Normalizes a possibly negative axis against a rank (PyTorch convention: -1 is the last axis).
// For ops that insert an axis (unsqueeze, stack) pass rank + 1.
// The rank of `v` (the argument `what`), or the one refusal for a rank the exporter does not know
// (only the run-time data decides it) or one below `at_least`. Symbolics that need a rank call this
// instead of writing their own message.
inline int64_t known_rank(Ctx& ctx, const Value& v, const char* what = "input", int64_t at_least = 0) {
  int64_t r = v.rank();
  if (r < 0) unsupported(ctx.kind() + ": " + what + " of unknown rank (the ONNX form depends on it)");
  if (r < at_least)
    unsupported(ctx.kind() + ": " + what + " of rank " + std::to_string(r) + " (needs at least " +
                std::to_string(at_least) + " dims)");
  return r;
}

inline int64_t normalize_axis(Ctx& ctx, int64_t axis, int64_t rank, const char* what = "dim") {
  if (rank < 0) fail(ctx.kind() + ": " + what + " needs a known rank");
  int64_t r = rank == 0 ? 1 : rank;  // PyTorch accepts dim 0 / -1 on 0-d tensors
  int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r)
    fail(ctx.kind() + ": " + what + "=" + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return a;
}

inline std::vector<int64_t> normalize_axes(Ctx& ctx, const std::vector<int64_t>& axes, int64_t rank,
                                           const char* what = "dim") {
  std::vector<int64_t> out;
  for (auto a : axes) out.push_back(normalize_axis(ctx, a, rank, what));
  return out;
}

// A constant int or int list argument expanded to n entries (PyTorch's _single/_pair/_triple):
// a single value is repeated; an empty list gives `fallback` (e.g. stride defaults to kernel).
inline std::vector<int64_t> expand_ints(Ctx& ctx, const Value& v, size_t n, const char* name,
                                        const std::vector<int64_t>& fallback = {}) {
  if (!v.valid() || v.is_none()) {
    if (fallback.size() == n) return fallback;
    fail(ctx.kind() + ": argument '" + name + "' is None");
  }
  if (!v.is_const()) unsupported(ctx.kind() + ": argument '" + name + "' must be constant (it is computed at run time)");
  std::vector<int64_t> r = v.to_ints();
  if (r.empty() && fallback.size() == n) return fallback;
  if (r.size() == 1 && n > 1) r.assign(n, r[0]);
  if (r.size() != n)
    fail(ctx.kind() + ": argument '" + name + "'=" + str(r) + " should have " + std::to_string(n) + " entries");
  return r;
}

// Optional input: invalid when the node has fewer inputs or the input is None.
inline Value opt_input(Ctx& ctx, int32_t i) {
  if (i >= ctx.num_inputs()) return Value();
  Value v = ctx.input(i);
  return v.is_none() ? Value() : v;
}

inline bool is_float_dtype(t2o_dtype d) {
  return d == T2O_DTYPE_FLOAT || d == T2O_DTYPE_DOUBLE || d == T2O_DTYPE_FLOAT16 || d == T2O_DTYPE_BFLOAT16;
}
inline bool is_int_dtype(t2o_dtype d) {
  return d == T2O_DTYPE_UINT8 || d == T2O_DTYPE_INT8 || d == T2O_DTYPE_UINT16 || d == T2O_DTYPE_INT16 ||
         d == T2O_DTYPE_INT32 || d == T2O_DTYPE_INT64 || d == T2O_DTYPE_UINT32 || d == T2O_DTYPE_UINT64;
}
inline bool is_scalar_kind(t2o_kind k) { return k == T2O_KIND_INT || k == T2O_KIND_FLOAT || k == T2O_KIND_BOOL; }

// TorchScript ScalarType code (the `dtype` arguments of aten ops) -> ONNX element type.
inline t2o_dtype dtype_from_scalar_type(Ctx& ctx, int64_t st) {
  switch (st) {
    case 0: return T2O_DTYPE_UINT8;
    case 1: return T2O_DTYPE_INT8;
    case 2: return T2O_DTYPE_INT16;
    case 3: return T2O_DTYPE_INT32;
    case 4: return T2O_DTYPE_INT64;
    case 5: return T2O_DTYPE_FLOAT16;
    case 6: return T2O_DTYPE_FLOAT;
    case 7: return T2O_DTYPE_DOUBLE;
    case 9: return T2O_DTYPE_COMPLEX64;
    case 10: return T2O_DTYPE_COMPLEX128;
    case 11: return T2O_DTYPE_BOOL;
    case 15: return T2O_DTYPE_BFLOAT16;
    default: unsupported(ctx.kind() + ": dtype (ScalarType " + std::to_string(st) + ") has no ONNX equivalent");
  }
}

// ONNX element type -> TorchScript ScalarType code (prim::dtype results); -1 if none.
inline int64_t scalar_type_from_dtype(t2o_dtype d) {
  switch (d) {
    case T2O_DTYPE_UINT8: return 0;
    case T2O_DTYPE_INT8: return 1;
    case T2O_DTYPE_INT16: return 2;
    case T2O_DTYPE_INT32: return 3;
    case T2O_DTYPE_INT64: return 4;
    case T2O_DTYPE_FLOAT16: return 5;
    case T2O_DTYPE_FLOAT: return 6;
    case T2O_DTYPE_DOUBLE: return 7;
    case T2O_DTYPE_COMPLEX64: return 9;
    case T2O_DTYPE_COMPLEX128: return 10;
    case T2O_DTYPE_BOOL: return 11;
    case T2O_DTYPE_BFLOAT16: return 15;
    default: return -1;
  }
}

// Records what is known of an emitted value (the host knows nothing of a symbolic's intermediate
// values until they are bound to a TorchScript output). rank -1 = unknown.
inline Value typed(Ctx& ctx, const Value& v, t2o_dtype dtype, int32_t rank = -1, std::vector<int64_t> dims = {}) {
  if (rank >= 0 && dims.size() != (size_t)rank) dims.assign((size_t)rank, -1);
  ctx.check(ctx.host()->value_set_type(ctx.raw(), v.id(), dtype, rank, dims.data()));
  return v;
}

// The dtype the TorchScript output had in the example run; `fallback` when unknown.
inline t2o_dtype output_dtype(Ctx& ctx, int32_t i, t2o_dtype fallback) {
  t2o_dtype d = ctx.output(i).dtype();
  return d == T2O_DTYPE_UNDEFINED ? fallback : d;
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_UTIL_HPP
