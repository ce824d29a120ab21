// aten::index_put(self, Tensor?[] indices, values, accumulate) at opsets 9-10: only x[mask] = v with
// one bool/uint8 mask and a single value, as Where (accumulate: x + Where(mask, v, 0)). Every other
// form needs ScatterND, which opset11/index_put.cpp (common/index_put.hpp) provides from opset 11;
// below that they are refused here with the opset they need.
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "common/shape_ops.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

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
  unsupported(ctx.kind() + ": x[mask] = tensor needs opset >= 11 (ScatterND)");
}

}  // namespace

T2O_SYMBOLIC("aten::index_put", 9) {
  Value x = ctx.input(0), list = ctx.input(1), values = ctx.input(2);
  bool accumulate = ctx.num_inputs() > 3 && ctx.input(3).to_int() != 0;
  int64_t r = known_rank(ctx, x, "input", 1);
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
  unsupported(ctx.kind() + ": writing at integer indices needs opset >= 11 (ScatterND)");
}
