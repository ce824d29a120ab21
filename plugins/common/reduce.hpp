// Reductions shared by several packs (aten::sum is registered at 9 and again at 13, where ReduceSum
// takes its axes as an input): reading `dim`/`keepdim` arguments, element counts of reduced axes,
// and Reduce* over dtypes ONNX lacks. Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_REDUCE_HPP
#define TORCH2ONNX_PACK_COMMON_REDUCE_HPP

#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "forms.hpp"
#include "util.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

// A `dim` argument (int, int[] or None) as normalized axes; None or [] = every axis (returned empty).
inline std::vector<int64_t> reduce_axes(Ctx& ctx, const Value& dim, int64_t rank) {
  if (!dim.valid() || dim.is_none()) return {};
  if (!all_const(dim)) unsupported(ctx.kind() + ": argument 'dim' computed at run time");
  std::vector<int64_t> axes = normalize_axes(ctx, dim.to_ints(), rank);
  if (rank == 0) axes.clear();  // dim 0 / -1 of a 0-d tensor
  return axes;
}

// Every axis when `axes` is empty.
inline std::vector<int64_t> all_axes_if_empty(const std::vector<int64_t>& axes, int64_t rank) {
  if (!axes.empty()) return axes;
  std::vector<int64_t> all;
  for (int64_t i = 0; i < rank; ++i) all.push_back(i);
  return all;
}

// ReduceMax/ReduceMin/ArgMax lack bool and (before opset 12) 8/16-bit integer types: such inputs
// are reduced as int32, which holds all their values exactly. Returns the dtype to compute in.
inline t2o_dtype minmax_compute_dtype(t2o_dtype d) {
  switch (d) {
    case T2O_DTYPE_BOOL:
    case T2O_DTYPE_UINT8:
    case T2O_DTYPE_INT8:
    case T2O_DTYPE_INT16:
    case T2O_DTYPE_UINT16:
      return T2O_DTYPE_INT32;
    default:
      return d;
  }
}

// Number of elements in the reduced axes of x, as a 0-d tensor of dtype `dt`: a constant when
// those dims are static, Shape/Gather/ReduceProd otherwise.
inline Value reduced_count(Ctx& ctx, const Value& x, const std::vector<int64_t>& axes, t2o_dtype dt) {
  std::vector<int64_t> all = all_axes_if_empty(axes, x.rank());
  bool is_static = true;
  int64_t n = 1;
  for (auto a : all) {
    int64_t d = x.dim((int32_t)a);
    if (d < 0) is_static = false;
    n *= d;
  }
  if (is_static) return ctx.scalar(dt, (double)n);
  if (all.empty()) return ctx.scalar(dt, 1.0);
  Value dims = dims_tensor(ctx, x, all);
  Value prod = reduce(ctx, "ReduceProd", dims, {0}, false);
  return ctx.op("Cast", {prod}, {Attr::i("to", dt)});
}

// The common form of aten::sum/mean/prod/amax/amin/logsumexp:
//   op(self, [dtype])                      -- every element
//   op(self, dim, keepdim, [dtype])        -- dim: int, int[] (empty = every axis) or None
// The input is first cast to the output's dtype (the `dtype` argument, or PyTorch's promotion of
// integer sums/products to int64).
// Python's sum over a list of numbers in scripted code (aten::sum.int(int[] self) -> int, sum.float):
// the items added, a constant when every item is; a list built at run time (an ONNX sequence: a list
// comprehension) -> ConcatFromSequence + ReduceSum, a 0 put in first so that an empty list sums to 0.
inline void sum_of_list(Ctx& ctx, const Value& list) {
  if (list.is_sequence()) {
    t2o_dtype d = list.dtype();
    bool floats = is_float_dtype(d);
    Value zero = floats ? ctx.scalar(d, 0.0) : ctx.scalar_i64(0);
    Value seq = ctx.op("SequenceInsert", {list, zero});
    Value all = ctx.op("ConcatFromSequence", {seq}, {Attr::i("axis", 0), Attr::i("new_axis", 1)});
    Value total = typed(ctx, reduce(ctx, "ReduceSum", all, {0}, false), floats ? d : T2O_DTYPE_INT64, 0);
    return ctx.set_output(0, ctx.make_dynamic_scalar(total, floats ? T2O_KIND_FLOAT : T2O_KIND_INT));
  }
  std::vector<Value> items = list.items();
  bool floats = false, constant = true;
  for (const Value& v : items) {
    if (v.kind() != T2O_KIND_INT && v.kind() != T2O_KIND_FLOAT && v.kind() != T2O_KIND_BOOL)
      unsupported(ctx.kind() + ": a list of other values than numbers");
    floats |= v.kind() == T2O_KIND_FLOAT;
    constant &= v.is_const();
  }
  if (constant) {
    double f = 0;
    int64_t i = 0;
    for (const Value& v : items) floats ? (void)(f += v.to_float()) : (void)(i += v.to_int());
    return ctx.set_output(0, floats ? ctx.make_float(f) : ctx.make_int(i));
  }
  t2o_dtype d = floats ? T2O_DTYPE_FLOAT : T2O_DTYPE_INT64;
  Value total;
  for (const Value& v : items) {
    Value t = to_dtype(ctx, v, d);
    total = total.valid() ? ctx.op("Add", {total, t}) : t;
  }
  ctx.set_output(0, ctx.make_dynamic_scalar(typed(ctx, total, d, 0), floats ? T2O_KIND_FLOAT : T2O_KIND_INT));
}

inline void reduce_symbolic(Ctx& ctx, const std::string& op_type) {
  Value x = ctx.input(0);
  if (op_type == "ReduceSum" && (x.kind() == T2O_KIND_LIST || x.is_sequence())) return sum_of_list(ctx, x);
  int64_t r = known_rank(ctx, x);
  std::vector<int64_t> axes;
  bool keepdim = false;
  if (ctx.num_inputs() >= 3) {
    axes = reduce_axes(ctx, ctx.input(1), r);
    keepdim = ctx.input(2).to_bool();
  }
  t2o_dtype dt = output_dtype(ctx, 0, x.dtype());
  Value in = cast_to(ctx, ctx.as_onnx(x), dt);
  if (r == 0) return ctx.set_output(0, in);  // reducing a 0-d tensor returns it
  bool minmax = op_type == "ReduceMax" || op_type == "ReduceMin";
  t2o_dtype compute = minmax ? minmax_compute_dtype(dt) : dt;
  Value y = reduce(ctx, op_type, cast_to(ctx, in, compute), axes, keepdim);
  if (compute != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
  ctx.set_output(0, y);
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_REDUCE_HPP
