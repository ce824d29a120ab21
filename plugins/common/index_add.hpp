// aten::index_copy(self, dim, index, source) and aten::index_add(self, dim, index, source, *,
// alpha=1) (+ in-place forms): source's slices along dim go to self's positions `index` (1-D).
// The index is laid along dim and expanded to source's shape, then ScatterElements (Scatter up to
// opset 10) writes, or with reduction='add' (opset 16) accumulates, repeated indices included.
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_INDEX_ADD_HPP
#define TORCH2ONNX_PACK_COMMON_INDEX_ADD_HPP

#include <torch2onnx/plugin.hpp>

#include <string>
#include <vector>

#include "shape_ops.hpp"

namespace t2o {
namespace pack {

// PyTorch adds (copies) each source slice to self's slice as a broadcast: its kernel works on
// self.select(dim, index[j]) and source.select(dim, j), so a source dim of size 1 other than dim
// spreads over self's. ScatterElements writes exactly the updates' elements, so the source is
// expanded first to self's shape with dim's size its own (Expand's broadcast of [.., K, ..]
// against self's shape with 1 at dim). A source whose dims already equal self's stays as it is.
inline Value broadcast_source(Ctx& ctx, const Value& x, const Value& source, Value src, int64_t axis) {
  int64_t r = x.rank();
  if (source.rank() != r) return src;
  bool same = true;
  for (int64_t d = 0; d < r; ++d)
    if (d != axis && (source.dim((int32_t)d) < 0 || source.dim((int32_t)d) != x.dim((int32_t)d))) same = false;
  if (same) return src;
  std::vector<Value> parts;
  std::vector<int64_t> before, after;
  for (int64_t d = 0; d < axis; ++d) before.push_back(d);
  for (int64_t d = axis + 1; d < r; ++d) after.push_back(d);
  if (!before.empty()) parts.push_back(dims_of(ctx, x, before));
  parts.push_back(ctx.const_i64({1}));
  if (!after.empty()) parts.push_back(dims_of(ctx, x, after));
  Value target = parts.size() == 1 ? parts[0] : ctx.op("Concat", parts, {Attr::i("axis", 0)});
  return ctx.op("Expand", {src, target});
}

inline void index_scatter_symbolic(Ctx& ctx, bool add) {
  std::string k = ctx.kind();
  Value x = ctx.input(0), index = ctx.input(2), source = ctx.input(3);
  int64_t r = known_rank(ctx, x);
  known_rank(ctx, source);
  if (!ctx.input(1).is_const()) unsupported(k + ": argument 'dim' must be constant");
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  if (index.rank() > 1) fail(k + ": index must be 0-d or 1-D");
  t2o_dtype dt = x.dtype();
  Value src = to_dtype(ctx, source, dt);
  if (r == 0) {  // a 0-d self: the single element is increased by every source value (or replaced by the last)
    if (source.rank() > 0)
      src = add ? reduce(ctx, "ReduceSum", src, {}, false)
                : ctx.op("Gather", {ctx.op("Reshape", {src, ctx.const_i64({-1})}), ctx.scalar_i64(-1)}, {Attr::i("axis", 0)});
    return ctx.set_output(0, add ? ctx.op("Add", {x, src}) : src);
  }
  if (source.rank() == 0) src = unsqueeze(ctx, src, {0});
  src = broadcast_source(ctx, x, source, src, axis);
  if (add && ctx.num_inputs() > 4) {
    Value alpha = ctx.input(4);
    if (!alpha.is_const()) unsupported(k + ": argument 'alpha' must be constant");
    if (alpha.to_float() != 1.0) src = ctx.op("Mul", {src, to_dtype(ctx, alpha, dt)});
  }
  std::vector<int64_t> along((size_t)r, 1);
  along[(size_t)axis] = -1;
  Value i = ctx.op("Reshape", {nonneg_index(ctx, index, x, axis), ctx.const_i64(along)});
  i = ctx.op("Expand", {i, ctx.op("Shape", {src})});
  std::vector<Attr> attrs{Attr::i("axis", axis)};
  if (add) attrs.push_back(Attr::s("reduction", "add"));
  ctx.set_output(0, ctx.op(ctx.opset() >= 11 ? "ScatterElements" : "Scatter", {x, i, src}, attrs));
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_INDEX_ADD_HPP
