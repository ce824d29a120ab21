// aten::outer(self, vec2) (also torch.ger): self[:, None] * vec2, in the promoted dtype.
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::outer", 9) {
  t2o_dtype dt = output_dtype(ctx, 0, ctx.input(0).dtype());
  Value a = to_dtype(ctx, ctx.input(0), dt), b = to_dtype(ctx, ctx.input(1), dt);
  ctx.set_output(0, ctx.op("Mul", {unsqueeze(ctx, a, {1}), b}));
}
T2O_SYMBOLIC("aten::ger", 9) {
  t2o_dtype dt = output_dtype(ctx, 0, ctx.input(0).dtype());
  Value a = to_dtype(ctx, ctx.input(0), dt), b = to_dtype(ctx, ctx.input(1), dt);
  ctx.set_output(0, ctx.op("Mul", {unsqueeze(ctx, a, {1}), b}));
}
