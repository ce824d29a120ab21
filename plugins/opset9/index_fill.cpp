// aten::index_fill(self, dim, index, value) -> Where(mask, value, self), where mask marks the
// positions of `dim` listed in index: Equal(arange(size), index) reduced over the index entries,
// reshaped to broadcast along `dim`. The arange is a constant for a static axis, Range (opset 11)
// for a dynamic one.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void index_fill(Ctx& ctx) {
  Value x = ctx.input(0), index = ctx.input(2), value = ctx.input(3);
  int64_t r = known_rank(ctx, x);
  if (value.kind() == T2O_KIND_TENSOR && value.rank() > 0) unsupported(ctx.kind() + ": value must be a scalar");
  int64_t axis = r == 0 ? 0 : normalize_axis(ctx, ctx.input(1).to_int(), r);
  int64_t D = r == 0 ? 1 : x.dim((int32_t)axis);
  Value positions;
  if (D >= 0) {
    std::vector<int64_t> ar;
    for (int64_t i = 0; i < D; ++i) ar.push_back(i);
    positions = ctx.const_i64(ar);
  } else {
    require(ctx, feature::kRange, "filling along dynamic axis " + std::to_string(axis));
    positions = ctx.op("Range", {ctx.scalar_i64(0), dim_tensor(ctx, x, axis), ctx.scalar_i64(1)});
  }
  Value idx = ctx.op("Reshape", {r == 0 ? as_i64(ctx, index) : nonneg_index(ctx, index, x, axis), ctx.const_i64({1, -1})});
  Value hit = ctx.op("Equal", {unsqueeze(ctx, positions, {1}), idx});  // [D, K]
  Value any = reduce(ctx, "ReduceMax", ctx.op("Cast", {hit}, {Attr::i("to", T2O_DTYPE_INT32)}), {1}, false);
  std::vector<int64_t> bshape((size_t)(r == 0 ? 0 : r), 1);
  if (r > 0) bshape[(size_t)axis] = -1;
  Value mask = ctx.op("Reshape", {ctx.op("Cast", {any}, {Attr::i("to", T2O_DTYPE_BOOL)}), ctx.const_i64(bshape)});
  ctx.set_output(0, where_any(ctx, mask, to_dtype(ctx, value, x.dtype()), x, x.dtype()));
}

}  // namespace

T2O_SYMBOLIC("aten::index_fill", 9) { index_fill(ctx); }
