// Turning TorchScript arguments into ONNX tensors: scalars with a chosen dtype, int lists
// (constant or holding run-time ints) as 1-D int64 shape tensors, single dims of a tensor.
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_VALUES_HPP
#define TORCH2ONNX_PACK_COMMON_VALUES_HPP

#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "forms.hpp"
#include "util.hpp"

namespace t2o {
namespace pack {

// Casts an ONNX tensor to dtype unless it already has it.
inline Value cast_to(Ctx& ctx, const Value& x, t2o_dtype dtype) {
  if (x.dtype() == dtype) return x;
  if (dtype == T2O_DTYPE_UNDEFINED) fail(ctx.kind() + ": cast to an unknown element type");
  int32_t r = x.rank();
  return typed(ctx, ctx.op("Cast", {x}, {Attr::i("to", dtype)}), dtype, r, r >= 0 ? x.dims() : std::vector<int64_t>{});
}

// Any tensor or scalar value as an ONNX tensor of `dtype`: a constant scalar becomes a 0-d
// constant of that dtype (as torch.onnx does: the tensor operand's dtype wins over a Python
// scalar's), a run-time scalar or a tensor is cast when its dtype differs.
inline Value to_dtype(Ctx& ctx, const Value& v, t2o_dtype dtype) {
  t2o_kind k = v.kind();
  if (is_scalar_kind(k) && v.is_const()) {
    if (k == T2O_KIND_FLOAT || !is_int_dtype(dtype)) return ctx.scalar(dtype, v.to_float());
    int64_t i = v.to_int();  // exact for large int64
    if (dtype == T2O_DTYPE_INT64) return ctx.scalar_i64(i);
    return ctx.scalar(dtype, (double)i);
  }
  if (k == T2O_KIND_TENSOR || is_scalar_kind(k)) return cast_to(ctx, ctx.as_onnx(v), dtype);
  fail(ctx.kind() + ": expected a tensor or a number");
}

// The ONNX dtype a scalar value stands for (run-time scalars: their tensor's dtype).
inline t2o_dtype scalar_dtype(const Value& v) {
  switch (v.kind()) {
    case T2O_KIND_INT: return T2O_DTYPE_INT64;
    case T2O_KIND_BOOL: return T2O_DTYPE_BOOL;
    case T2O_KIND_FLOAT: {
      if (v.is_const()) return T2O_DTYPE_FLOAT;
      t2o_dtype d = v.dtype();
      return d == T2O_DTYPE_UNDEFINED ? T2O_DTYPE_FLOAT : d;
    }
    default: return v.dtype();
  }
}

// Dim `axis` of tensor x as a 0-d int64 ONNX tensor (Shape + Gather), for dynamic dims.
inline Value dim_tensor(Ctx& ctx, const Value& x, int64_t axis) {
  Value shape = ctx.op("Shape", {x});
  return typed(ctx, ctx.op("Gather", {shape, ctx.scalar_i64(axis)}, {Attr::i("axis", 0)}), T2O_DTYPE_INT64, 0);
}

// Dims `axes` of x as a 1-D int64 ONNX tensor (Shape + Gather).
inline Value dims_tensor(Ctx& ctx, const Value& x, const std::vector<int64_t>& axes) {
  Value shape = ctx.op("Shape", {x});
  return typed(ctx, ctx.op("Gather", {shape, ctx.const_i64(axes)}, {Attr::i("axis", 0)}), T2O_DTYPE_INT64, 1,
               {(int64_t)axes.size()});
}

// An int list argument (int[] / SymInt[]) as a 1-D int64 ONNX tensor. Constant lists become one
// initializer; lists holding run-time ints (e.g. from aten::size on a dynamic axis) become
// Unsqueeze of each run-time item + Concat with the constant runs. A 1-D int tensor is cast to
// int64, a single int gives a 1-element tensor.
inline Value int_list_tensor(Ctx& ctx, const Value& list) {
  t2o_kind k = list.kind();
  if (k == T2O_KIND_TENSOR) {
    Value t = ctx.as_onnx(list);
    if (list.rank() == 0) t = unsqueeze(ctx, t, {0});
    return cast_to(ctx, t, T2O_DTYPE_INT64);
  }
  if (k == T2O_KIND_INT) {
    if (list.is_const()) return ctx.const_i64({list.to_int()});
    return unsqueeze(ctx, cast_to(ctx, ctx.as_onnx(list), T2O_DTYPE_INT64), {0});
  }
  if (k != T2O_KIND_LIST) fail(ctx.kind() + ": expected a list of ints");
  if (list.is_const()) return ctx.const_i64(list.to_ints());
  std::vector<Value> parts;
  std::vector<int64_t> run;
  for (const Value& item : list.items()) {
    if (item.is_const()) {
      run.push_back(item.to_int());
      continue;
    }
    if (!run.empty()) parts.push_back(ctx.const_i64(run)), run.clear();
    Value t = cast_to(ctx, ctx.as_onnx(item), T2O_DTYPE_INT64);
    if (item.kind() != T2O_KIND_TENSOR || item.rank() == 0) t = typed(ctx, unsqueeze(ctx, t, {0}), T2O_DTYPE_INT64, 1, {1});
    parts.push_back(t);
  }
  if (!run.empty()) parts.push_back(ctx.const_i64(run));
  if (parts.size() == 1) return parts[0];
  return typed(ctx, ctx.op("Concat", parts, {Attr::i("axis", 0)}), T2O_DTYPE_INT64, 1, {list.list_size()});
}

// True when every item of a list value is a compile-time constant.
inline bool all_const(const Value& list) {
  if (list.is_const()) return true;
  for (const Value& item : list.items())
    if (!item.is_const()) return false;
  return true;
}

// Runs `body` on x given a batch axis: PyTorch's conv/pool accept unbatched inputs (rank
// spatial+1), ONNX needs (N, C, ...). Unsqueezes axis 0 before and squeezes it after when needed.
template <typename Fn>
Value with_batch(Ctx& ctx, const Value& x, int64_t spatial, Fn body) {
  int32_t r = x.rank();
  if (r == spatial + 1) return squeeze(ctx, body(unsqueeze(ctx, x, {0})), {0});
  if (r >= 0 && r != spatial + 2)
    fail(ctx.kind() + ": expected a " + std::to_string(spatial + 2) + "-D input, got rank " + std::to_string(r));
  return body(x);
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_VALUES_HPP
