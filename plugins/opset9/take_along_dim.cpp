// aten::take_along_dim(self, indices, dim=None). dim=None: Gather on both flattened (any opset).
// With dim: GatherElements (opset 11; refused below), after PyTorch's broadcasting of self and
// indices over every axis but dim (each is expanded to the other's shape with dim set to 1).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// x's shape with entry `axis` replaced by 1, as a 1-D int64 tensor.
Value shape_with_one(Ctx& ctx, const Value& x, int64_t axis) {
  if (x.has_static_shape()) {
    std::vector<int64_t> d = x.dims();
    d[(size_t)axis] = 1;
    return ctx.const_i64(d);
  }
  Value s = ctx.op("Shape", {x});
  std::vector<Value> parts;
  if (axis > 0) parts.push_back(slice(ctx, s, {0}, {0}, {axis}));
  parts.push_back(ctx.const_i64({1}));
  if (axis + 1 < x.rank()) parts.push_back(slice(ctx, s, {0}, {axis + 1}, {kInt64Max}));
  return parts.size() == 1 ? parts[0] : ctx.op("Concat", parts, {Attr::i("axis", 0)});
}

// True when a and b have equal static dims everywhere but `axis`.
bool same_but_axis(const Value& a, const Value& b, int64_t axis) {
  if (!a.has_static_shape() || !b.has_static_shape()) return false;
  for (int64_t i = 0; i < a.rank(); ++i)
    if (i != axis && a.dim((int32_t)i) != b.dim((int32_t)i)) return false;
  return true;
}

}  // namespace

T2O_SYMBOLIC("aten::take_along_dim", 9) {
  Value x = ctx.input(0), idx = ctx.input(1);
  Value dim = opt_input(ctx, 2);
  Value i = as_i64(ctx, idx);
  if (!dim.valid()) {
    Value flat = ctx.op("Reshape", {x, ctx.const_i64({-1})});
    return ctx.set_output(0, ctx.op("Gather", {flat, ctx.op("Reshape", {i, ctx.const_i64({-1})})}, {Attr::i("axis", 0)}));
  }
  int64_t r = x.rank();
  if (r < 0 || idx.rank() != r) unsupported("aten::take_along_dim: input and indices need the same known rank");
  if (!dim.is_const()) unsupported("aten::take_along_dim: argument 'dim' must be constant");
  int64_t axis = normalize_axis(ctx, dim.to_int(), r);
  require(ctx, feature::kGatherElements, "with dim,");
  Value data = ctx.as_onnx(x);
  if (!same_but_axis(x, idx, axis)) {
    data = ctx.op("Expand", {data, shape_with_one(ctx, idx, axis)});
    i = ctx.op("Expand", {i, shape_with_one(ctx, x, axis)});
  }
  ctx.set_output(0, ctx.op("GatherElements", {data, i}, {Attr::i("axis", axis)}));
}
