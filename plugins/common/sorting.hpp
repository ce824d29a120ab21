// aten::topk / sort / argsort through ONNX TopK, whose form changes twice:
//   opset 9:  k is an attribute; always the largest k, sorted
//   opset 10: k is an input (1-D int64), so it may be computed at run time
//   opset 11: `largest` and `sorted` attributes; ties are broken by the lower index first, which
//             makes TopK a stable sort (TopK-1/10 leave the order of ties unspecified).
// TopK is an auxiliary form here (topk, sort, argsort, median, kthvalue... all use it), so the
// symbolics are registered once, at 9, and `topk_form` emits the form valid at ctx.opset().
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_SORTING_HPP
#define TORCH2ONNX_PACK_COMMON_SORTING_HPP

#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "forms.hpp"
#include "util.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

// TopK of x (a TorchScript tensor) along `axis` (normalized). k: a constant int, a run-time int or
// an invalid Value meaning the whole axis. Returns {values, indices}.
inline std::pair<Value, Value> topk_form(Ctx& ctx, const Value& x, const Value& k, int64_t axis, bool largest,
                                         bool stable) {
  int64_t opset = ctx.opset();
  t2o_dtype dt = x.dtype();
  // The dtype to run TopK in: TopK-1/10 take floating types only (small integers are exact in
  // double; int64 is not); ONNX Runtime's TopK-11 has no 8/16-bit or bool kernels (int32 holds them).
  t2o_dtype compute = dt;
  bool small_int = dt == T2O_DTYPE_BOOL || dt == T2O_DTYPE_UINT8 || dt == T2O_DTYPE_INT8 ||
                   dt == T2O_DTYPE_INT16 || dt == T2O_DTYPE_UINT16;
  if (opset < 11) {
    if (small_int || dt == T2O_DTYPE_INT32 || dt == T2O_DTYPE_UINT32) compute = T2O_DTYPE_DOUBLE;
    else if (!is_float_dtype(dt))
      unsupported(ctx.kind() + ": input of element type " +
                  (dt == T2O_DTYPE_INT64 ? std::string("int64") : "#" + std::to_string((int)dt)) +
                  " needs opset >= 11 (TopK takes floating types only before 11)");
    if (stable) unsupported(ctx.kind() + ": stable=True needs opset >= 11 (TopK breaks ties by index from 11)");
  } else if (small_int) {
    compute = T2O_DTYPE_INT32;
  }
  Value in = cast_to(ctx, ctx.as_onnx(x), compute);
  // Smallest-k before opset 11: the largest k of -x, negated back. Ties keep the same order (the
  // values are equal either way) and -(-x) == x exactly for floats.
  bool negate = !largest && opset < 11;
  if (negate) in = ctx.op("Neg", {in});

  // k: a constant, the whole axis (static or Shape-based), or a run-time int (opset >= 10).
  int64_t k_const = -1;
  Value k_tensor;
  if (!k.valid()) {
    int64_t d = x.dim((int32_t)axis);
    if (d >= 0) k_const = d;
    else if (opset >= 10) k_tensor = dims_tensor(ctx, x, {axis});
    else unsupported(ctx.kind() + ": a dynamic size along dim " + std::to_string(axis) + " needs opset >= 10");
  } else if (k.is_const()) {
    k_const = k.to_int();
  } else if (opset >= 10) {
    k_tensor = int_list_tensor(ctx, k);
  } else {
    unsupported(ctx.kind() + ": argument 'k' computed at run time needs opset >= 10");
  }

  std::vector<Attr> attrs{Attr::i("axis", axis)};
  std::vector<Value> inputs{in};
  if (opset >= 10) inputs.push_back(k_tensor.valid() ? k_tensor : ctx.const_i64({k_const}));
  else attrs.push_back(Attr::i("k", k_const));
  if (opset >= 11) {
    attrs.push_back(Attr::i("largest", largest ? 1 : 0));
    attrs.push_back(Attr::i("sorted", 1));
  }
  std::vector<Value> out = ctx.op_n("TopK", inputs, 2, attrs);
  Value values = negate ? ctx.op("Neg", {out[0]}) : out[0];
  if (compute != dt) values = ctx.op("Cast", {values}, {Attr::i("to", dt)});
  return {values, out[1]};
}

// topk(self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (values, indices)
// sorted=False: PyTorch leaves the order unspecified, so the sorted order is a valid answer.
inline void topk_symbolic(Ctx& ctx) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  Value dim = ctx.input(2);
  if (!dim.is_const()) unsupported("aten::topk: argument 'dim' computed at run time");
  bool largest = ctx.input(3).to_bool();
  if (r == 0) {  // k is 0 or 1 on a 0-d tensor; PyTorch returns it as is
    ctx.set_output(0, x);
    return ctx.set_output(1, ctx.scalar_i64(0));
  }
  auto vi = topk_form(ctx, x, ctx.input(1), normalize_axis(ctx, dim.to_int(), r), largest, false);
  ctx.set_output(0, vi.first);
  ctx.set_output(1, vi.second);
}

// sort(self, int dim=-1, bool descending=False) / sort.stable(self, *, bool? stable, int dim=-1,
// bool descending=False) -> (values, indices); argsort: the indices only (same two overloads).
inline void sort_symbolic(Ctx& ctx, bool indices_only) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  int32_t first = ctx.num_inputs() == 4 ? 2 : 1;  // the .stable overload has `stable` first
  bool stable = false;
  if (first == 2) {
    Value s = ctx.input(1);
    stable = !s.is_none() && s.to_bool();
  }
  Value dim = ctx.input(first);
  if (!dim.is_const()) unsupported(ctx.kind() + ": argument 'dim' computed at run time");
  bool descending = ctx.input(first + 1).to_bool();
  if (r == 0) {
    if (indices_only) return ctx.set_output(0, ctx.scalar_i64(0));
    ctx.set_output(0, x);
    return ctx.set_output(1, ctx.scalar_i64(0));
  }
  auto vi = topk_form(ctx, x, Value(), normalize_axis(ctx, dim.to_int(), r), descending, stable);
  if (indices_only) return ctx.set_output(0, vi.second);
  ctx.set_output(0, vi.first);
  ctx.set_output(1, vi.second);
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_SORTING_HPP
