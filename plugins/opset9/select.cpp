// aten::select(self, dim, index) -> Gather with a 0-d index (drops the axis).
// Negative indices are made non-negative (Gather accepts them only from opset 11).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::select", 9) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  if (r < 1) unsupported("aten::select: input must have rank >= 1 (rank " + std::to_string(r) + ")");
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  Value index = ctx.input(2);
  Value idx = nonneg_index(ctx, index, x, axis);
  if (index.kind() == T2O_KIND_TENSOR && index.rank() != 0) idx = ctx.op("Reshape", {idx, ctx.const_i64({})});
  ctx.set_output(0, ctx.op("Gather", {x, idx}, {Attr::i("axis", axis)}));
}
