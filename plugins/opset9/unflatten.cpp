// aten::unflatten(self, dim, sizes) -> Reshape: the dims before dim copied (0), dim replaced by
// sizes (one may be -1), the dims after given (constants when static, Shape otherwise).
// Sizes computed at run time (a dynamic program's symbolic sizes: a list of aten::size results)
// give a shape computed at run time: Concat(dims before, sizes, dims after). A -1 among them is
// resolved as PyTorch's infer_size does, against dim's own size (dim / the product of the other
// sizes), and from opset 14 the shape is taken literally (allowzero=1: every dim given, so a size
// of 0 at run time is an empty axis, not a copied one). Below 14 Reshape's 0 copies the input's
// dim: a size that is 0 only at run time (an empty axis) then fails in ONNX Runtime.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// The shape for sizes holding run-time items.
Value runtime_target(Ctx& ctx, const Value& x, int64_t axis, int64_t r, const Value& sizes) {
  int64_t minus_ones = 0;
  bool zero = false;
  if (sizes.kind() == T2O_KIND_LIST) {
    for (const Value& item : sizes.items()) {
      if (!item.is_const()) continue;
      minus_ones += item.to_int() == -1;
      zero = zero || item.to_int() == 0;
      if (item.to_int() < -1) fail("aten::unflatten: a size of " + std::to_string(item.to_int()));
    }
  }
  if (minus_ones > 1) fail("aten::unflatten: more than one size is -1");
  if (zero) require(ctx, feature::kReshapeAllowZero, "a size of 0 (empty axis)");
  Value s = int_list_tensor(ctx, sizes);
  if (minus_ones == 1) {
    // The product of the sizes is -(product of the others): dim / that (0 when it is 0, where
    // PyTorch refuses -1 as ambiguous; never a division by zero).
    Value prod = reduce(ctx, "ReduceProd", s, {0}, false);
    Value zero_prod = ctx.op("Equal", {prod, ctx.scalar_i64(0)});
    Value others = ctx.op("Where", {zero_prod, ctx.scalar_i64(1), ctx.op("Abs", {prod})});
    Value inferred = ctx.op("Div", {dim_scalar(ctx, x, axis), others});
    s = ctx.op("Where", {ctx.op("Equal", {s, ctx.scalar_i64(-1)}), inferred, s});
  }
  std::vector<Value> parts;
  if (axis > 0) {
    std::vector<int64_t> before;
    for (int64_t i = 0; i < axis; ++i) before.push_back(i);
    parts.push_back(has(ctx, feature::kReshapeAllowZero) ? dims_of(ctx, x, before)
                                                         : ctx.const_i64(std::vector<int64_t>((size_t)axis, 0)));
  }
  parts.push_back(s);
  std::vector<int64_t> rest;
  for (int64_t i = axis + 1; i < r; ++i) rest.push_back(i);
  if (!rest.empty()) parts.push_back(dims_of(ctx, x, rest));
  return parts.size() == 1 ? parts[0] : ctx.op("Concat", parts, {Attr::i("axis", 0)});
}

}  // namespace

T2O_SYMBOLIC("aten::unflatten", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x, "input", 1);
  if (!ctx.input(1).is_const()) unsupported("aten::unflatten: argument 'dim' must be constant");
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  Value sizes = ctx.input(2);
  if (!all_const(sizes)) {
    std::vector<Attr> attrs;
    if (has(ctx, feature::kReshapeAllowZero)) attrs.push_back(Attr::i("allowzero", 1));
    return ctx.set_output(0, ctx.op("Reshape", {x, runtime_target(ctx, x, axis, r, sizes)}, attrs));
  }
  std::vector<int64_t> head((size_t)axis, 0);
  for (auto s : sizes.to_ints()) {
    if (s == 0) unsupported("aten::unflatten: a size of 0");
    head.push_back(s);
  }
  std::vector<int64_t> rest;
  for (int64_t i = axis + 1; i < r; ++i) rest.push_back(i);
  Value target = ctx.const_i64(head);
  if (!rest.empty()) target = ctx.op("Concat", {target, dims_of(ctx, x, rest)}, {Attr::i("axis", 0)});
  ctx.set_output(0, ctx.op("Reshape", {x, target}));
}
