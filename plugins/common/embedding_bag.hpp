// The bag reduction of an embedding bag, shared by aten::embedding_bag (opset9/embedding_bag.cpp) and
// the quantized embedding bags (quantized/embedding.cpp), which differ only in how they get their rows.
//
// rows (n, D): the looked-up (and weighted) rows of 1-D indices (n). Bag b holds the positions
// offsets[b] <= i < offsets[b+1]; the last bag ends at n, or, with include_last_offset, the last offset
// only closes the bag before it. `keep` (optional, bool (n)) drops positions (padding_idx, pruned rows).
// A (B, n) membership mask, then
//   sum:  ReduceSum over i of Where(member, rows, 0)
//   mean: sum / max(members, 1)                 (an empty bag gives 0, as PyTorch)
//   max:  ReduceMax of Where(member, rows, -inf), 0 for an empty bag
// Offsets may be known only at run time. Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_EMBEDDING_BAG_HPP
#define TORCH2ONNX_PACK_COMMON_EMBEDDING_BAG_HPP

#include <torch2onnx/plugin.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "forms.hpp"
#include "shape_ops.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

enum class BagMode : int64_t { kSum = 0, kMean = 1, kMax = 2 };

// rows: (n, D) of dtype dt; indices: the 1-D indices (their length n); offsets: 1-D.
inline Value reduce_bags(Ctx& ctx, const Value& rows, t2o_dtype dt, const Value& indices, const Value& offsets,
                         bool include_last_offset, BagMode mode, const Value& keep = Value()) {
  const int64_t n = indices.dim(0);
  Value pos;  // positions 0..n-1
  if (n >= 0) {
    std::vector<int64_t> p;
    for (int64_t i = 0; i < n; ++i) p.push_back(i);
    pos = ctx.const_i64(p);
  } else {
    require(ctx, feature::kRange, "a dynamic number of indices");
    pos = ctx.op("Range", {ctx.scalar_i64(0), dim_tensor(ctx, indices, 0), ctx.scalar_i64(1)});
  }
  Value off = as_i64(ctx, offsets);
  Value starts, ends;
  if (include_last_offset) {
    starts = slice(ctx, off, {0}, {0}, {-1});
    ends = slice(ctx, off, {0}, {1}, {kInt64Max});
  } else {
    starts = off;
    Value total = n >= 0 ? ctx.const_i64({n}) : unsqueeze(ctx, dim_tensor(ctx, indices, 0), {0});
    ends = ctx.op("Concat", {slice(ctx, off, {0}, {1}, {kInt64Max}), total}, {Attr::i("axis", 0)});
  }
  Value p = unsqueeze(ctx, pos, {0});  // (1, n)
  Value member = ctx.op("And", {ctx.op("Not", {ctx.op("Less", {p, unsqueeze(ctx, starts, {1})})}),
                                ctx.op("Less", {p, unsqueeze(ctx, ends, {1})})});  // (B, n)
  if (keep.valid()) member = ctx.op("And", {member, unsqueeze(ctx, keep, {0})});
  Value member3 = unsqueeze(ctx, member, {2});  // (B, n, 1)
  Value rows3 = unsqueeze(ctx, rows, {0});      // (1, n, D)
  Value zero = ctx.scalar(dt, 0.0);
  if (mode == BagMode::kSum) return reduce(ctx, "ReduceSum", ctx.op("Where", {member3, rows3, zero}), {1}, false);
  Value count = reduce(ctx, "ReduceSum", ctx.op("Cast", {member3}, {Attr::i("to", dt)}), {1}, false);  // (B, 1)
  if (mode == BagMode::kMax) {
    Value m = reduce(ctx, "ReduceMax", ctx.op("Where", {member3, rows3, ctx.scalar(dt, -INFINITY)}), {1}, false);
    return ctx.op("Where", {ctx.op("Greater", {count, zero}), m, zero});
  }
  Value sum = reduce(ctx, "ReduceSum", ctx.op("Where", {member3, rows3, zero}), {1}, false);
  return ctx.op("Div", {sum, ctx.op("Max", {count, ctx.scalar(dt, 1.0)})});
}

}  // namespace pack
}  // namespace t2o

#endif
