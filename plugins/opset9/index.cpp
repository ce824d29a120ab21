// aten::index(self, Tensor?[] indices) (x[idx], x[:, idx], x[i, j], x[mask]) and
// aten::index_select(self, dim, index).
// - one integer index tensor: Gather on its axis (PyTorch's result shape is Gather's);
// - several: the indexed axes are moved to the front and flattened, the indices combined into one
//   flat index (broadcasting them), one Gather, and the broadcast dims moved back to where the first
//   index was when the indexed axes were adjacent (PyTorch's rule);
// - one bool/uint8 mask: the masked axes are flattened and gathered at NonZero of the flat mask
//   (data-dependent result size; opset 9, no GatherND needed).
// Negative indices are made non-negative first (needed for the flat index; Gather < 11).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// x's dims `axes` ++ a leading -1 as a Reshape target.
Value reshape_target(Ctx& ctx, const Value& x, std::vector<int64_t> head, const std::vector<int64_t>& tail_axes) {
  if (tail_axes.empty()) return ctx.const_i64(head);
  bool stat = true;
  for (auto a : tail_axes) stat = stat && x.dim((int32_t)a) >= 0;
  if (stat) {
    for (auto a : tail_axes) head.push_back(x.dim((int32_t)a));
    return ctx.const_i64(head);
  }
  return ctx.op("Concat", {ctx.const_i64(head), dims_tensor(ctx, x, tail_axes)}, {Attr::i("axis", 0)});
}

void mask_index(Ctx& ctx, const Value& x, int64_t k, const Value& mask) {
  int64_t r = x.rank(), m = mask.rank();
  if (m < 1) unsupported("aten::index: a 0-d boolean index");
  if (k + m > r) fail("aten::index: mask of rank " + std::to_string(m) + " at dim " + std::to_string(k) +
                      " does not fit a rank-" + std::to_string(r) + " input");
  Value flat_mask = m == 1 ? ctx.as_onnx(mask) : ctx.op("Reshape", {mask, ctx.const_i64({-1})});
  Value nz = ctx.op("NonZero", {flat_mask});  // [1, N]
  Value idx = squeeze(ctx, nz, {0});
  Value data = x;
  if (m > 1) {
    // Leading dims are copied (0), the masked ones merged (-1), the trailing ones kept.
    std::vector<int64_t> head((size_t)k, 0);
    head.push_back(-1);
    std::vector<int64_t> tail;
    for (int64_t i = k + m; i < r; ++i) tail.push_back(i);
    data = ctx.op("Reshape", {x, reshape_target(ctx, x, head, tail)});
  }
  ctx.set_output(0, ctx.op("Gather", {data, idx}, {Attr::i("axis", k)}));
}

}  // namespace

T2O_SYMBOLIC("aten::index", 9) {
  Value x = ctx.input(0), list = ctx.input(1);
  int64_t r = known_rank(ctx, x);
  if (list.kind() != T2O_KIND_LIST) unsupported("aten::index: indices must be a list built in the graph");
  std::vector<Value> items = list.items();
  std::vector<int64_t> axes;
  std::vector<Value> idx;
  bool has_mask = false;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].is_none()) continue;
    if (items[i].kind() != T2O_KIND_TENSOR) unsupported("aten::index: an index that is not a tensor");
    t2o_dtype dt = items[i].dtype();
    if (dt == T2O_DTYPE_BOOL || dt == T2O_DTYPE_UINT8) has_mask = true;
    axes.push_back((int64_t)i);
    idx.push_back(items[i]);
  }
  if (idx.empty()) return ctx.set_output(0, x);
  if (has_mask) {
    if (idx.size() != 1) unsupported("aten::index: a boolean mask combined with other indices");
    return mask_index(ctx, x, axes[0], idx[0]);
  }
  if ((int64_t)items.size() > r) fail("aten::index: too many indices for a rank-" + std::to_string(r) + " input");
  if (idx.size() == 1)
    return ctx.set_output(0, ctx.op("Gather", {x, nonneg_index(ctx, idx[0], x, axes[0])}, {Attr::i("axis", axes[0])}));

  // Several index tensors: flat index over the indexed axes (moved to the front).
  std::vector<int64_t> perm = axes, rest;
  for (int64_t i = 0; i < r; ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) rest.push_back(i);
  perm.insert(perm.end(), rest.begin(), rest.end());
  bool identity = true;
  for (int64_t i = 0; i < r; ++i) identity = identity && perm[(size_t)i] == i;
  Value data = identity ? x : ctx.op("Transpose", {x}, {Attr::ints("perm", perm)});
  data = ctx.op("Reshape", {data, reshape_target(ctx, x, {-1}, rest)});
  Value flat;
  int64_t b = 0;  // rank of the broadcast index shape
  for (size_t j = 0; j < idx.size(); ++j) {
    b = std::max<int64_t>(b, idx[j].rank());
    Value i = nonneg_index(ctx, idx[j], x, axes[j]);
    flat = j == 0 ? i : ctx.op("Add", {ctx.op("Mul", {flat, dim_scalar(ctx, x, axes[j])}), i});
  }
  Value out = ctx.op("Gather", {data, flat}, {Attr::i("axis", 0)});  // [B..., rest...]
  bool adjacent = true;
  for (size_t j = 1; j < axes.size(); ++j) adjacent = adjacent && axes[j] == axes[j - 1] + 1;
  int64_t k = axes[0];
  if (adjacent && k > 0 && b > 0) {
    // Move the broadcast dims back to position k: [rest[:k], B..., rest[k:]].
    std::vector<int64_t> back;
    for (int64_t i = 0; i < k; ++i) back.push_back(b + i);
    for (int64_t i = 0; i < b; ++i) back.push_back(i);
    for (int64_t i = b + k; i < b + (int64_t)rest.size(); ++i) back.push_back(i);
    out = ctx.op("Transpose", {out}, {Attr::ints("perm", back)});
  }
  ctx.set_output(0, out);
}

// index_select(self, dim, index): index is 1-D (or 0-d, which keeps the axis with size 1).
T2O_SYMBOLIC("aten::index_select", 9) {
  Value x = ctx.input(0), index = ctx.input(2);
  int64_t r = known_rank(ctx, x);
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  Value i = as_i64(ctx, index);
  if (index.rank() == 0) i = unsqueeze(ctx, i, {0});
  if (r == 0) return ctx.set_output(0, x);
  ctx.set_output(0, ctx.op("Gather", {x, i}, {Attr::i("axis", axis)}));
}
