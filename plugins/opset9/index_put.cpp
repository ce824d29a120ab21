// aten::index_put(self, Tensor?[] indices, values, accumulate): x[mask] = v, x[idx] = v,
// x[i, j] = v (what index_put_ becomes after mutation removal, or after the host functionalizes a
// write into a view). Indices must sit on the leading axes (x[:, idx] = v is not handled).
// - one bool/uint8 mask with a single value: Where (any opset; accumulate: x + Where(mask, v, 0));
// - a mask with a tensor of values: ScatterND at the mask's NonZero positions (opset 11);
// - integer index tensors: broadcast together, stacked into ScatterND indices (opset 11), negative
//   ones made non-negative; accumulate=True needs ScatterND's reduction (opset 16).
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "common/shape_ops.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// [lead..., x.shape[k:]...] as a 1-D int64 tensor; `lead` is a 1-D int64 tensor.
Value updates_shape(Ctx& ctx, const Value& x, const Value& lead, int64_t k) {
  std::vector<int64_t> tail;
  for (int64_t a = k; a < x.rank(); ++a) tail.push_back(a);
  if (tail.empty()) return lead;
  return ctx.op("Concat", {lead, dims_of(ctx, x, tail)}, {Attr::i("axis", 0)});
}

Value scatter_nd(Ctx& ctx, const Value& x, const Value& indices, const Value& updates, bool accumulate) {
  if (ctx.opset() < 11) unsupported(ctx.kind() + ": this indexed write needs opset >= 11 (ScatterND)");
  if (!accumulate) return ctx.op("ScatterND", {x, indices, updates});
  if (ctx.opset() < 16) unsupported(ctx.kind() + ": accumulate=True needs opset >= 16 (ScatterND reduction)");
  return ctx.op("ScatterND", {x, indices, updates}, {Attr::s("reduction", "add")});
}

bool single_value(const Value& v) {
  if (is_scalar_kind(v.kind())) return true;
  if (v.kind() != T2O_KIND_TENSOR || !v.has_static_shape()) return false;
  for (auto d : v.dims())
    if (d != 1) return false;
  return true;
}

void put_mask(Ctx& ctx, const Value& x, const Value& mask, const Value& values, bool accumulate) {
  int64_t r = x.rank(), m = mask.rank();
  t2o_dtype dt = x.dtype();
  if (m < 1 || m > r) unsupported(ctx.kind() + ": a rank-" + std::to_string(m) + " mask on a rank-" + std::to_string(r) + " input");
  Value b = mask.dtype() == T2O_DTYPE_BOOL ? ctx.as_onnx(mask) : cast_to(ctx, ctx.as_onnx(mask), T2O_DTYPE_BOOL);
  if (single_value(values)) {
    Value v = to_dtype(ctx, values, dt);
    if (values.kind() == T2O_KIND_TENSOR && values.rank() > 0) v = ctx.op("Reshape", {v, ctx.const_i64({})});
    std::vector<int64_t> trailing;
    for (int64_t a = m; a < r; ++a) trailing.push_back(a);
    Value cond = trailing.empty() ? b : unsqueeze(ctx, b, trailing);
    if (!accumulate) return ctx.set_output(0, where_any(ctx, cond, v, x, dt));
    if (dt == T2O_DTYPE_BOOL) unsupported(ctx.kind() + ": accumulate on a bool tensor");
    return ctx.set_output(0, ctx.op("Add", {x, ctx.op("Where", {cond, v, ctx.scalar(dt, 0.0)})}));
  }
  if (ctx.opset() < 11) unsupported(ctx.kind() + ": x[mask] = tensor needs opset >= 11 (ScatterND)");
  Value indices = ctx.op("Transpose", {ctx.op("NonZero", {b})}, {Attr::ints("perm", {1, 0})});  // [N, m]
  Value count = ctx.op("Slice", {ctx.op("Shape", {indices}), ctx.const_i64({0}), ctx.const_i64({1})});
  Value updates = ctx.op("Expand", {to_dtype(ctx, values, dt), updates_shape(ctx, x, count, m)});
  ctx.set_output(0, scatter_nd(ctx, x, indices, updates, accumulate));
}

}  // namespace

T2O_SYMBOLIC("aten::index_put", 9) {
  Value x = ctx.input(0), list = ctx.input(1), values = ctx.input(2);
  bool accumulate = ctx.num_inputs() > 3 && ctx.input(3).to_int() != 0;
  int64_t r = x.rank();
  if (r < 1) unsupported(ctx.kind() + ": input rank unknown or 0");
  if (list.kind() != T2O_KIND_LIST) unsupported(ctx.kind() + ": indices must be a list built in the graph");
  std::vector<Value> items = list.items();
  while (!items.empty() && items.back().is_none()) items.pop_back();  // x[i, :] = v
  if (items.empty()) unsupported(ctx.kind() + ": no index tensor");
  bool has_mask = false;
  for (const Value& i : items) {
    if (i.is_none()) unsupported(ctx.kind() + ": an index after a full slice (x[:, idx] = v)");
    if (i.kind() != T2O_KIND_TENSOR) unsupported(ctx.kind() + ": an index that is not a tensor");
    has_mask = has_mask || i.dtype() == T2O_DTYPE_BOOL || i.dtype() == T2O_DTYPE_UINT8;
  }
  if ((int64_t)items.size() > r) fail(ctx.kind() + ": too many indices for a rank-" + std::to_string(r) + " input");
  if (has_mask) {
    if (items.size() != 1) unsupported(ctx.kind() + ": a boolean mask combined with other indices");
    return put_mask(ctx, x, items[0], values, accumulate);
  }
  if (ctx.opset() < 11) unsupported(ctx.kind() + ": writing at integer indices needs opset >= 11 (ScatterND)");
  // Broadcast the index tensors together (adding zeros of every other index's shape), then stack
  // them on a new last axis: ScatterND's [B..., k] indices.
  std::vector<Value> idx;
  for (size_t j = 0; j < items.size(); ++j) idx.push_back(nonneg_index(ctx, items[j], x, (int64_t)j));
  Value zeros;
  if (idx.size() > 1)
    for (const Value& i : idx) {
      Value z = ctx.op("Mul", {i, ctx.scalar_i64(0)});
      zeros = zeros.valid() ? ctx.op("Add", {zeros, z}) : z;
    }
  int64_t b = 0;
  for (const Value& i : items) b = std::max<int64_t>(b, i.rank());
  std::vector<Value> stacked;
  for (Value i : idx) {
    if (zeros.valid()) i = ctx.op("Add", {i, zeros});
    stacked.push_back(unsqueeze(ctx, i, {b}));
  }
  Value indices = stacked.size() == 1 ? stacked[0] : ctx.op("Concat", stacked, {Attr::i("axis", b)});
  Value lead = ctx.op("Shape", {zeros.valid() ? zeros : idx[0]});
  if (b == 0) lead = ctx.const_i64(std::vector<int64_t>{});
  Value updates = ctx.op("Expand", {to_dtype(ctx, values, x.dtype()), updates_shape(ctx, x, lead, (int64_t)idx.size())});
  ctx.set_output(0, scatter_nd(ctx, x, indices, updates, accumulate));
}
