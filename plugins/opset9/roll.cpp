// aten::roll(self, shifts, dims): per axis, Concat(x[-s:], x[:-s]). With no dims, the flattened
// tensor is rolled and reshaped back. A static axis takes s modulo its size; on a dynamic axis
// the formula holds for |s| < size (as torch.onnx assumes).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

Value roll_axis(Ctx& ctx, const Value& x, int64_t axis, int64_t D, int64_t s) {
  if (D >= 0) {
    if (D == 0) return x;
    s = ((s % D) + D) % D;
    if (s == 0) return x;
    Value a = slice(ctx, x, {axis}, {D - s}, {kInt64Max});
    Value b = slice(ctx, x, {axis}, {0}, {D - s});
    return ctx.op("Concat", {a, b}, {Attr::i("axis", axis)});
  }
  if (s == 0) return x;
  Value a = slice(ctx, x, {axis}, {-s}, {kInt64Max});
  Value b = slice(ctx, x, {axis}, {0}, {-s});
  return ctx.op("Concat", {a, b}, {Attr::i("axis", axis)});
}

}  // namespace

T2O_SYMBOLIC("aten::roll", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  std::vector<int64_t> shifts = ctx.input(1).to_ints();
  std::vector<int64_t> dims = ctx.num_inputs() > 2 ? ctx.input(2).to_ints() : std::vector<int64_t>{};
  if (dims.empty()) {
    if (shifts.size() != 1) fail("aten::roll: " + std::to_string(shifts.size()) + " shifts without dims");
    int64_t n = -1;
    if (x.has_static_shape()) {
      n = 1;
      for (auto d : x.dims()) n *= d;
    }
    Value flat = ctx.op("Reshape", {x, ctx.const_i64({-1})});
    Value rolled = roll_axis(ctx, flat, 0, n, shifts[0]);
    return ctx.set_output(0, ctx.op("Reshape", {rolled, shape_of(ctx, x)}));
  }
  if (shifts.size() != dims.size()) fail("aten::roll: shifts " + str(shifts) + " and dims " + str(dims) + " differ in length");
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t a = normalize_axis(ctx, dims[i], r);
    x = roll_axis(ctx, x, a, ctx.input(0).dim((int32_t)a), shifts[i]);  // rolled values carry no dims
  }
  ctx.set_output(0, x);
}
