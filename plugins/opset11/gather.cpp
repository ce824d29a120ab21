// aten::gather(self, dim, index, sparse_grad) -> GatherElements (opset 11).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::gather", 11) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  if (r == 0) return ctx.set_output(0, x);
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  ctx.set_output(0, ctx.op("GatherElements", {x, as_i64(ctx, ctx.input(2))}, {Attr::i("axis", axis)}));
}
