// aten::flip(self, dims) -> one Slice with step -1 on every flipped axis (from opset 10); a 0-d
// input is returned as it is.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::flip", 10) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  std::vector<int64_t> axes = normalize_axes(ctx, ctx.input(1).to_ints(), r);
  if (axes.empty() || r == 0) return ctx.set_output(0, x);
  size_t n = axes.size();
  ctx.set_output(0, ctx.op("Slice", {x, ctx.const_i64(std::vector<int64_t>(n, -1)),
                                      ctx.const_i64(std::vector<int64_t>(n, kInt64Min)), ctx.const_i64(axes),
                                      ctx.const_i64(std::vector<int64_t>(n, -1))}));
}
