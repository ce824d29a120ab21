// aten::where(condition, self, other) (Tensor and Scalar overloads) -> Where, operands cast to the
// output's dtype (PyTorch promotes self and other). The one-argument where(condition) is nonzero.
#include <torch2onnx/plugin.hpp>

#include "common/promote.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::where", 9) {
  if (ctx.num_inputs() < 3) unsupported("aten::where(condition) (nonzero form): use nonzero");
  Value cond = ctx.input(0), a = ctx.input(1), b = ctx.input(2);
  t2o_dtype dt = output_dtype(ctx, 0, result_type({a, b}));
  ctx.set_output(0, ctx.op("Where", {to_dtype(ctx, cond, T2O_DTYPE_BOOL), to_dtype(ctx, a, dt), to_dtype(ctx, b, dt)}));
}
