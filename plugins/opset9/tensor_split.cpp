// aten::tensor_split.sections(Tensor self, int sections, int dim=0) -> Tensor[]
// aten::tensor_split.indices(Tensor self, int[] indices, int dim=0) -> Tensor[]
// aten::tensor_split.tensor_indices_or_sections(Tensor self, Tensor tensor_indices_or_sections, int dim=0) -> Tensor[]
// One Slice per part. `sections` parts: the first n % sections have n / sections + 1 elements; on a
// dynamic axis the bounds are computed at run time (opset 10+: Slice with bound inputs). The count
// is always `sections`, so the parts stay a list of fixed length, never a sequence. `indices` i0,
// i1, ...: self[:i0], self[i0:i1], ..., self[ik:] with Python's slice rules (negative indices count
// from the end, out-of-range ones clamp, a decreasing pair gives an empty part), which are ONNX
// Slice's, on a dynamic axis too. The tensor form must be a
// constant (0-d: sections, 1-D: indices).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

Value part(Ctx& ctx, const Value& x, int64_t axis, int64_t start, int64_t end) {
  return slice(ctx, x, {axis}, {start}, {end});
}

// Sections of a dynamic axis of length L: with q = L / N and r = L % N, part i starts at
// i * q + min(i, r) (the first r parts one longer). min(i, r) is a Where: Min on integers needs 12.
void dynamic_sections(Ctx& ctx, const Value& x, int64_t axis, int64_t sections) {
  require(ctx, feature::kSliceInputs, "sections of dynamic axis " + std::to_string(axis));
  Value length = dims_tensor(ctx, x, {axis});  // [L]
  Value n = ctx.const_i64({sections});
  Value q = ctx.op("Div", {length, n});
  Value r = ctx.op("Sub", {length, ctx.op("Mul", {q, n})});
  auto bound = [&](int64_t i) {
    Value ci = ctx.const_i64({i});
    Value extra = ctx.op("Where", {ctx.op("Less", {r, ci}), r, ci});
    return ctx.op("Add", {ctx.op("Mul", {q, ci}), extra});
  };
  Value axes = ctx.const_i64({axis}), start = ctx.const_i64({0});
  std::vector<Value> parts;
  for (int64_t i = 0; i < sections; ++i) {
    Value end = i + 1 < sections ? bound(i + 1) : ctx.const_i64({kInt64Max});
    parts.push_back(ctx.op("Slice", {ctx.as_onnx(x), start, end, axes}));
    start = end;
  }
  ctx.set_output(0, ctx.make_list(parts));
}

void by_sections(Ctx& ctx, const Value& x, int64_t axis, int64_t sections) {
  if (sections <= 0) fail("aten::tensor_split: number of sections must be positive, got " + std::to_string(sections));
  int64_t n = x.dim((int32_t)axis);
  if (n < 0) return dynamic_sections(ctx, x, axis, sections);
  std::vector<Value> parts;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    int64_t size = n / sections + (i < n % sections ? 1 : 0);
    parts.push_back(part(ctx, ctx.as_onnx(x), axis, start, start + size));
    start += size;
  }
  ctx.set_output(0, ctx.make_list(parts));
}

void by_indices(Ctx& ctx, const Value& x, int64_t axis, const std::vector<int64_t>& indices) {
  std::vector<Value> parts;
  int64_t start = 0;
  for (int64_t i : indices) {
    parts.push_back(part(ctx, ctx.as_onnx(x), axis, start, i));
    start = i;
  }
  parts.push_back(part(ctx, ctx.as_onnx(x), axis, start, kInt64Max));
  ctx.set_output(0, ctx.make_list(parts));
}

}  // namespace

T2O_SYMBOLIC("aten::tensor_split", 9) {
  Value x = ctx.input(0), what = ctx.input(1);
  int64_t r = known_rank(ctx, x, "input", 1);
  if (!ctx.input(2).is_const()) unsupported("aten::tensor_split: argument 'dim' computed at run time");
  int64_t axis = normalize_axis(ctx, ctx.input(2).to_int(), r);
  if (!what.is_const() && !(what.kind() == T2O_KIND_LIST && all_const(what)))
    unsupported("aten::tensor_split: sections/indices computed at run time");
  t2o_kind k = what.kind();
  if (k == T2O_KIND_INT) return by_sections(ctx, x, axis, what.to_int());
  if (k == T2O_KIND_LIST) return by_indices(ctx, x, axis, what.to_ints());
  if (k == T2O_KIND_TENSOR) {
    if (what.rank() == 0) return by_sections(ctx, x, axis, what.to_ints().at(0));
    if (what.rank() == 1) return by_indices(ctx, x, axis, what.to_ints());
    fail("aten::tensor_split: tensor_indices_or_sections must be 0-d or 1-D");
  }
  fail("aten::tensor_split: unexpected argument kind");
}
