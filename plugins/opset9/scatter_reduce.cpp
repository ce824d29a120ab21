// aten::scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *,
//     bool include_self=True) -> Tensor        reduce: sum, prod, mean, amax, amin
// ONNX <= 17 has ScatterElements reductions for add/mul only (max/min are opset 18), so every
// reduction is computed densely: with `dim` moved last, a one-hot mask index[..., j] == t over the
// target positions t (self's static size along dim) selects src[..., j] for each t (the neutral
// element elsewhere), and the selected values are reduced over j (ReduceSum/Prod/Max/Min; mean:
// the sum over the count). The result, shaped like index with self's size along dim, is padded to
// self's shape; positions no index names keep self, the others take the reduction (combined with
// self when include_self). Integer mean divides with floor, as PyTorch. Memory: |index| x size(dim).
#include <torch2onnx/plugin.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

enum class Red { Sum, Prod, Mean, Amax, Amin };

Red parse(Ctx& ctx, const std::string& s) {
  if (s == "sum") return Red::Sum;
  if (s == "prod") return Red::Prod;
  if (s == "mean") return Red::Mean;
  if (s == "amax") return Red::Amax;
  if (s == "amin") return Red::Amin;
  fail(ctx.kind() + ": reduce='" + s + "' (sum, prod, mean, amax or amin)");
}

double neutral(Red red, bool floating) {
  switch (red) {
    case Red::Prod: return 1.0;
    case Red::Amax: return floating ? -INFINITY : (double)std::numeric_limits<int64_t>::min();
    case Red::Amin: return floating ? INFINITY : (double)std::numeric_limits<int64_t>::max();
    default: return 0.0;
  }
}

Value neutral_value(Ctx& ctx, Red red, t2o_dtype work) {
  bool floating = is_float_dtype(work);
  if (!floating && red == Red::Amax) return ctx.scalar_i64(std::numeric_limits<int64_t>::min());
  if (!floating && red == Red::Amin) return ctx.scalar_i64(std::numeric_limits<int64_t>::max());
  return ctx.scalar(work, neutral(red, floating));
}

}  // namespace

T2O_SYMBOLIC("aten::scatter_reduce", 9) {
  Value self = ctx.input(0), index = ctx.input(2), src = ctx.input(3);
  int64_t r = known_rank(ctx, self, "input", 1);
  if (index.rank() != r || src.rank() != r) fail("aten::scatter_reduce: self, index and src need the same rank");
  if (!ctx.input(1).is_const()) unsupported("aten::scatter_reduce: argument 'dim' computed at run time");
  int64_t d = normalize_axis(ctx, ctx.input(1).to_int(), r);
  Red red = parse(ctx, ctx.input(4).to_string());
  bool include_self = ctx.num_inputs() > 5 ? ctx.input(5).to_bool() : true;
  int64_t size = self.dim((int32_t)d);
  if (size < 0) unsupported("aten::scatter_reduce: the size of self along dim must be static");
  if (!index.has_static_shape() || !self.has_static_shape())
    unsupported("aten::scatter_reduce: self and index need static shapes");
  std::vector<int64_t> self_dims = self.dims(), index_dims = index.dims(), src_dims = src.dims();
  t2o_dtype dt = self.dtype();
  bool floating = is_float_dtype(dt);
  t2o_dtype work = floating ? (dt == T2O_DTYPE_DOUBLE ? dt : T2O_DTYPE_FLOAT) : T2O_DTYPE_INT64;
  bool pad_needed = false;
  for (int64_t a = 0; a < r; ++a)
    if (a != d && index_dims[(size_t)a] != self_dims[(size_t)a]) pad_needed = true;
  if (pad_needed && !floating) require(ctx, feature::kIntegerPad, "an integer index smaller than self");

  Value x = cast_to(ctx, ctx.as_onnx(self), work);
  // src restricted to index's extent.
  Value s = cast_to(ctx, ctx.as_onnx(src), work);
  bool src_larger = false;
  for (int64_t a = 0; a < r; ++a) src_larger = src_larger || src_dims[(size_t)a] != index_dims[(size_t)a];
  if (src_larger) {
    std::vector<int64_t> axes, starts, ends;
    for (int64_t a = 0; a < r; ++a) axes.push_back(a), starts.push_back(0), ends.push_back(index_dims[(size_t)a]);
    s = slice(ctx, s, axes, starts, ends);
  }
  Value idx = as_i64(ctx, index);
  idx = ctx.op("Where", {ctx.op("Less", {idx, ctx.scalar_i64(0)}), ctx.op("Add", {idx, ctx.scalar_i64(size)}), idx});
  // dim last.
  std::vector<int64_t> perm;
  for (int64_t a = 0; a < r; ++a)
    if (a != d) perm.push_back(a);
  perm.push_back(d);
  std::vector<int64_t> inverse((size_t)r);
  for (int64_t a = 0; a < r; ++a) inverse[(size_t)perm[(size_t)a]] = a;
  bool moved = d != r - 1;
  if (moved) {
    idx = ctx.op("Transpose", {idx}, {Attr::ints("perm", perm)});
    s = ctx.op("Transpose", {s}, {Attr::ints("perm", perm)});
  }
  std::vector<int64_t> ids;
  for (int64_t t = 0; t < size; ++t) ids.push_back(t);
  Value targets = ctx.const_i64(ids);
  Value mask = ctx.op("Equal", {unsqueeze(ctx, idx, {r}), targets});  // (..., J, size)
  Value vals = ctx.op("Where", {mask, unsqueeze(ctx, s, {r}), neutral_value(ctx, red, work)});
  const char* op = red == Red::Prod ? "ReduceProd" : red == Red::Amax ? "ReduceMax" : red == Red::Amin ? "ReduceMin" : "ReduceSum";
  Value reduced = reduce(ctx, op, vals, {r - 1}, false);  // (..., size)
  Value count = reduce(ctx, "ReduceSum", ctx.op("Cast", {mask}, {Attr::i("to", work)}), {r - 1}, false);
  if (moved) {
    reduced = ctx.op("Transpose", {reduced}, {Attr::ints("perm", inverse)});
    count = ctx.op("Transpose", {count}, {Attr::ints("perm", inverse)});
  }
  if (pad_needed) {
    std::vector<int64_t> pads((size_t)(2 * r), 0);
    for (int64_t a = 0; a < r; ++a)
      if (a != d) pads[(size_t)(r + a)] = self_dims[(size_t)a] - index_dims[(size_t)a];
    reduced = pad_constant(ctx, reduced, work, pads, 0.0);
    count = pad_constant(ctx, count, work, pads, 0.0);
  }
  Value zero = ctx.scalar(work, 0.0);
  Value hit = ctx.op("Greater", {count, zero});
  Value combined;
  switch (red) {
    case Red::Sum: combined = include_self ? ctx.op("Add", {x, reduced}) : reduced; break;
    case Red::Prod: combined = include_self ? ctx.op("Mul", {x, reduced}) : reduced; break;
    case Red::Amax:
      combined = include_self ? ctx.op("Where", {ctx.op("Greater", {reduced, x}), reduced, x}) : reduced;
      break;
    case Red::Amin:
      combined = include_self ? ctx.op("Where", {ctx.op("Less", {reduced, x}), reduced, x}) : reduced;
      break;
    case Red::Mean: {
      Value total = include_self ? ctx.op("Add", {x, reduced}) : reduced;
      Value n = include_self ? ctx.op("Add", {count, ctx.scalar(work, 1.0)})
                             : ctx.op("Where", {hit, count, ctx.scalar(work, 1.0)});
      if (floating) {
        combined = ctx.op("Div", {total, n});
      } else {  // floor division (Div truncates toward zero)
        Value q = ctx.op("Div", {total, n});
        Value rem = ctx.op("Sub", {total, ctx.op("Mul", {q, n})});
        Value adjust = ctx.op("Cast", {ctx.op("Less", {rem, zero})}, {Attr::i("to", work)});
        combined = ctx.op("Sub", {q, adjust});
      }
      break;
    }
  }
  Value y = ctx.op("Where", {hit, combined, x});
  if (work != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
  ctx.set_output(0, y);
}
