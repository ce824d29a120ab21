// aten::index_put(self, Tensor?[] indices, Tensor values, bool accumulate=False) and index_put_
// (x[idx] = v, x[:, idx] = v, x[mask] = v, x[i, j] = v) as ScatterND: registered at opset 11
// (ScatterND) and 16 (reduction='add' for accumulate=True). Header-only, SDK only.
//
// PyTorch semantics: None slots are full slices; a bool/uint8 mask of rank m stands for the m
// index tensors of its NonZero; the index tensors broadcast to a shape B; x[indices] has shape
//   x.shape[:a0] + B + x.shape[a_last+1:]   when the indexed axes a0..a_last are adjacent,
//   B + x.shape[not indexed]                 otherwise,
// and `values` broadcasts to that shape.
// ONNX form: x transposed so the indexed axes come first (ScatterND indexes leading axes), the
// index tensors stacked on a last axis ([B..., K]), values laid out as B + remaining dims.
#ifndef TORCH2ONNX_PACK_COMMON_INDEX_PUT_HPP
#define TORCH2ONNX_PACK_COMMON_INDEX_PUT_HPP

#include <torch2onnx/plugin.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "shape_ops.hpp"

namespace t2o {
namespace pack {

inline void index_put_symbolic(Ctx& ctx, bool has_reduction) {
  std::string k = ctx.kind();
  Value x = ctx.input(0), list = ctx.input(1), values = ctx.input(2);
  bool accumulate = ctx.num_inputs() > 3 && ctx.input(3).to_bool();
  if (accumulate && !has_reduction)
    unsupported(k + ": accumulate=True needs opset >= 16 (ScatterND with reduction='add')");
  int64_t r = known_rank(ctx, x);
  if (list.kind() != T2O_KIND_LIST) unsupported(k + ": indices must be a list built in the graph");
  if (values.kind() != T2O_KIND_TENSOR) unsupported(k + ": values that are not a tensor");
  known_rank(ctx, values, "values");
  t2o_dtype dt = x.dtype();

  // Index tensors (int64, non-negative) and the axis of x each one indexes.
  std::vector<int64_t> axes;
  std::vector<Value> idx;
  int64_t b = 0;  // rank of the broadcast index shape B
  Value stacked;  // [B..., K] when a single mask is the only index
  int64_t pos = 0, masks = 0, tensors = 0;
  for (const Value& item : list.items()) {
    if (item.is_none()) {
      ++pos;
      continue;
    }
    if (item.kind() != T2O_KIND_TENSOR) unsupported(k + ": an index that is not a tensor");
    ++tensors;
    t2o_dtype it = item.dtype();
    if (it == T2O_DTYPE_BOOL || it == T2O_DTYPE_UINT8) {
      int64_t m = item.rank();
      if (m < 1) unsupported(k + ": a 0-d boolean index");
      if (pos + m > r) fail(k + ": a rank-" + std::to_string(m) + " mask at dim " + std::to_string(pos) +
                            " does not fit a rank-" + std::to_string(r) + " input");
      ++masks;
      Value nz = typed(ctx, ctx.op("NonZero", {item}), T2O_DTYPE_INT64, 2);  // [m, N]
      stacked = ctx.op("Transpose", {nz}, {Attr::ints("perm", {1, 0})});
      for (int64_t j = 0; j < m; ++j) {
        axes.push_back(pos + j);
        idx.push_back(ctx.op("Gather", {nz, ctx.scalar_i64(j)}, {Attr::i("axis", 0)}));
      }
      b = std::max<int64_t>(b, 1);
      pos += m;
      continue;
    }
    if (!is_int_dtype(it)) unsupported(k + ": index of element type " + std::to_string((int)it));
    if (pos >= r) fail(k + ": too many indices for a rank-" + std::to_string(r) + " input");
    known_rank(ctx, item, "index");
    axes.push_back(pos);
    idx.push_back(nonneg_index(ctx, item, x, pos));
    b = std::max<int64_t>(b, item.rank());
    ++pos;
  }
  if (pos > r) fail(k + ": too many indices for a rank-" + std::to_string(r) + " input");
  if (idx.empty()) {
    // Every slot None: x[...] = values overwrites (or adds to) the whole tensor.
    Value v = ctx.op("Expand", {to_dtype(ctx, values, dt), shape_of(ctx, x)});
    return ctx.set_output(0, accumulate ? ctx.op("Add", {x, v}) : v);
  }

  // Stack the (broadcast) index tensors on a new last axis: [B..., K].
  if (!(tensors == 1 && masks == 1)) {
    Value zeros;
    if (idx.size() > 1) {
      for (const Value& t : idx) {
        Value z = ctx.op("Mul", {t, ctx.scalar_i64(0)});
        zeros = zeros.valid() ? ctx.op("Add", {zeros, z}) : z;
      }
    }
    std::vector<Value> cols;
    for (const Value& t : idx) cols.push_back(unsqueeze(ctx, zeros.valid() ? ctx.op("Add", {t, zeros}) : t, {b}));
    stacked = cols.size() == 1 ? cols[0] : ctx.op("Concat", cols, {Attr::i("axis", b)});
  }
  const int64_t K = (int64_t)axes.size();

  // Indexed axes first.
  std::vector<int64_t> rest, perm = axes;
  for (int64_t i = 0; i < r; ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) rest.push_back(i);
  perm.insert(perm.end(), rest.begin(), rest.end());
  bool identity = true;
  for (int64_t i = 0; i < r; ++i) identity = identity && perm[(size_t)i] == i;
  Value xt = identity ? ctx.as_onnx(x) : ctx.op("Transpose", {x}, {Attr::ints("perm", perm)});

  // Updates of shape B + x.shape[rest].
  Value index_shape = ctx.op("Shape", {stacked});
  Value target = b == 0 ? Value() : slice(ctx, index_shape, {0}, {0}, {b});
  if (!rest.empty()) {
    Value rest_dims = dims_of(ctx, x, rest);
    target = target.valid() ? ctx.op("Concat", {target, rest_dims}, {Attr::i("axis", 0)}) : rest_dims;
  }
  if (!target.valid()) target = ctx.const_i64({});
  Value v = to_dtype(ctx, values, dt);
  int64_t vr = values.rank();
  bool adjacent = axes.back() - axes.front() + 1 == K;
  int64_t a0 = axes.front();
  int64_t after = r - 1 - axes.back();
  if (adjacent && a0 > 0 && vr > after && b > 0) {
    // values broadcast against x.shape[:a0] + B + x.shape[after]: move its B axes to the front.
    int64_t full = a0 + b + after;
    if (vr > full) fail(k + ": values of rank " + std::to_string(vr) + " do not fit the indexed shape");
    if (vr < full) {
      std::vector<int64_t> lead;
      for (int64_t i = 0; i < full - vr; ++i) lead.push_back(i);
      v = unsqueeze(ctx, v, lead);
    }
    std::vector<int64_t> vp;
    for (int64_t i = 0; i < b; ++i) vp.push_back(a0 + i);
    for (int64_t i = 0; i < a0; ++i) vp.push_back(i);
    for (int64_t i = a0 + b; i < full; ++i) vp.push_back(i);
    v = ctx.op("Transpose", {v}, {Attr::ints("perm", vp)});
  }
  Value updates = ctx.op("Expand", {v, target});

  std::vector<Attr> attrs;
  if (accumulate) attrs.push_back(Attr::s("reduction", "add"));
  Value y = ctx.op("ScatterND", {xt, stacked, updates}, attrs);
  if (!identity) {
    std::vector<int64_t> inverse((size_t)r);
    for (int64_t i = 0; i < r; ++i) inverse[(size_t)perm[(size_t)i]] = i;
    y = ctx.op("Transpose", {y}, {Attr::ints("perm", inverse)});
  }
  ctx.set_output(0, y);
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_INDEX_PUT_HPP
