// aten::max / aten::min, all three overloads, and aten::argmax / argmin. Registered at 9 and at
// 12 (opsetN/max_min.cpp), where elementwise Max/Min gain integer types; `max_min` emits the form
// valid at ctx.opset(). Header-only, SDK only.
//   max(self)                         -> every element (ReduceMax, 0-d result)
//   max.dim(self, int dim, keepdim)   -> (values, indices): ReduceMax + ArgMax
//   max.other(self, Tensor other)     -> elementwise Max (before 12, integers: Greater + Where)
//   argmax(self, int? dim=None, bool keepdim=False)
#ifndef TORCH2ONNX_PACK_COMMON_MAX_MIN_HPP
#define TORCH2ONNX_PACK_COMMON_MAX_MIN_HPP

#include <torch2onnx/plugin.hpp>

#include <string>
#include <vector>

#include "promote.hpp"
#include "reduce.hpp"

namespace t2o {
namespace pack {

inline Value minmax_cast_back(Ctx& ctx, const Value& y, t2o_dtype from, t2o_dtype to) {
  return from == to ? y : ctx.op("Cast", {y}, {Attr::i("to", to)});
}

// ArgMax/ArgMin of x (already in a supported dtype) along `axis`; None: over the flattened tensor,
// reshaped to the output's shape (PyTorch gives 0-d, or all-ones dims with keepdim).
// ONNX's default select_last_index=0 returns the first extreme, as PyTorch does.
inline Value arg_reduce(Ctx& ctx, const char* op_type, const Value& x, int64_t rank, const Value& dim, bool keepdim) {
  if (dim.valid() && !dim.is_none() && rank > 0) {
    if (!dim.is_const()) unsupported(ctx.kind() + ": argument 'dim' computed at run time");
    int64_t axis = normalize_axis(ctx, dim.to_int(), rank);
    return ctx.op(op_type, {x}, {Attr::i("axis", axis), Attr::i("keepdims", keepdim ? 1 : 0)});
  }
  Value flat = ctx.op("Reshape", {x, ctx.const_i64({-1})});
  Value y = ctx.op(op_type, {flat}, {Attr::i("axis", 0), Attr::i("keepdims", 0)});
  if (keepdim && rank > 0) y = ctx.op("Reshape", {y, ctx.const_i64(std::vector<int64_t>((size_t)rank, 1))});
  return y;
}

inline void max_min(Ctx& ctx, bool is_max) {
  const char* reduce_op = is_max ? "ReduceMax" : "ReduceMin";
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  t2o_dtype dt = x.dtype();

  if (ctx.num_inputs() == 2 && ctx.input(1).is_tensor()) {
    // Binary: both operands in the promoted (output) dtype. Max/Min take integer types only from
    // opset 12: before that integers are compared with Greater/Less + Where (exact, no NaN there).
    t2o_dtype out = result_type({x, ctx.input(1)});
    Value a = to_dtype(ctx, x, out), b = to_dtype(ctx, ctx.input(1), out);
    if (out == T2O_DTYPE_BOOL) return ctx.set_output(0, ctx.op(is_max ? "Or" : "And", {a, b}));
    if (is_float_dtype(out) || ctx.opset() >= 12) return ctx.set_output(0, ctx.op(is_max ? "Max" : "Min", {a, b}));
    Value pick_a = ctx.op(is_max ? "Greater" : "Less", {a, b});
    return ctx.set_output(0, ctx.op("Where", {pick_a, a, b}));
  }

  t2o_dtype compute = minmax_compute_dtype(dt);
  Value in = cast_to(ctx, ctx.as_onnx(x), compute);
  if (ctx.num_inputs() == 1) {  // every element
    Value y = r == 0 ? in : reduce(ctx, reduce_op, in, {}, false);
    return ctx.set_output(0, minmax_cast_back(ctx, y, compute, dt));
  }
  if (ctx.num_inputs() != 3) fail(ctx.kind() + ": unexpected overload with " + std::to_string(ctx.num_inputs()) + " inputs");
  Value dim = ctx.input(1);
  if (!dim.is_const()) unsupported(ctx.kind() + ": argument 'dim' computed at run time");
  bool keepdim = ctx.input(2).to_bool();
  if (r == 0) {  // values = x, indices = 0
    ctx.set_output(0, minmax_cast_back(ctx, in, compute, dt));
    return ctx.set_output(1, ctx.scalar_i64(0));
  }
  int64_t axis = normalize_axis(ctx, dim.to_int(), r);
  Value values = reduce(ctx, reduce_op, in, {axis}, keepdim);
  ctx.set_output(0, minmax_cast_back(ctx, values, compute, dt));
  ctx.set_output(1, ctx.op(is_max ? "ArgMax" : "ArgMin", {in},
                           {Attr::i("axis", axis), Attr::i("keepdims", keepdim ? 1 : 0)}));
}

inline void arg_symbolic(Ctx& ctx, const char* op_type) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  Value in = cast_to(ctx, ctx.as_onnx(x), minmax_compute_dtype(x.dtype()));
  Value dim = opt_input(ctx, 1);
  bool keepdim = ctx.num_inputs() > 2 && ctx.input(2).to_bool();
  ctx.set_output(0, arg_reduce(ctx, op_type, in, r, dim, keepdim));
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_MAX_MIN_HPP
