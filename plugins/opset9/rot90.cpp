// aten::rot90(Tensor self, int k=1, int[] dims=[0, 1]) -> Tensor
// As PyTorch: k mod 4 = 1: flip dims[1], then swap dims; 2: flip both; 3: flip dims[0], then swap.
// Flips are Slice with step -1 from opset 10, a Gather of reversed positions (static axis) at 9.
#include <torch2onnx/plugin.hpp>

#include <utility>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

Value flip_axis(Ctx& ctx, const Value& x, const Value& src, int64_t axis) {
  if (has(ctx, feature::kSliceSteps)) return t2o::pack::flip_axis(ctx, x, axis);
  int64_t n = src.dim((int32_t)axis);
  if (n < 0) require(ctx, feature::kSliceSteps, "flipping dynamic axis " + std::to_string(axis));
  std::vector<int64_t> idx;
  for (int64_t i = n - 1; i >= 0; --i) idx.push_back(i);
  return ctx.op("Gather", {x, ctx.const_i64(idx)}, {Attr::i("axis", axis)});
}

}  // namespace

T2O_SYMBOLIC("aten::rot90", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x, "input", 2);
  if (!ctx.input(1).is_const() || !ctx.input(2).is_const())
    unsupported("aten::rot90: arguments 'k' and 'dims' must be constant");
  int64_t k = ((ctx.input(1).to_int() % 4) + 4) % 4;
  std::vector<int64_t> dims = normalize_axes(ctx, ctx.input(2).to_ints(), r, "dims");
  if (dims.size() != 2 || dims[0] == dims[1]) fail("aten::rot90: 'dims' must name two different axes");
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < r; ++i) perm.push_back(i);
  std::swap(perm[dims[0]], perm[dims[1]]);
  Value y = ctx.as_onnx(x);
  switch (k) {
    case 0: break;
    case 1: y = ctx.op("Transpose", {flip_axis(ctx, y, x, dims[1])}, {Attr::ints("perm", perm)}); break;
    case 2: y = flip_axis(ctx, flip_axis(ctx, y, x, dims[0]), x, dims[1]); break;
    default: y = ctx.op("Transpose", {flip_axis(ctx, y, x, dims[0])}, {Attr::ints("perm", perm)}); break;
  }
  ctx.set_output(0, y);
}
