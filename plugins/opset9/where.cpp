// aten::where(condition, self, other) (Tensor and Scalar overloads) -> Where, operands cast to the
// output's dtype (PyTorch promotes self and other). The one-argument where(condition) is
// nonzero(condition, as_tuple=True): one [N] int64 tensor per axis, the rows of NonZero.
#include <torch2onnx/plugin.hpp>

#include "common/promote.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::where", 9) {
  if (ctx.num_inputs() < 3) {
    // aten::where(Tensor condition) -> Tensor[]
    Value cond = ctx.input(0);
    int64_t r = cond.rank();
    if (r < 1) unsupported("aten::where(condition): argument 'condition' of rank " + std::to_string(r));
    Value rows = ctx.op("NonZero", {to_dtype(ctx, cond, T2O_DTYPE_BOOL)});  // [rank, N]
    std::vector<Value> per_axis;
    for (int64_t i = 0; i < r; ++i)
      per_axis.push_back(ctx.op("Gather", {rows, ctx.scalar_i64(i)}, {Attr::i("axis", 0)}));
    ctx.set_output(0, ctx.make_list(per_axis));
    return;
  }
  Value cond = ctx.input(0), a = ctx.input(1), b = ctx.input(2);
  t2o_dtype dt = output_dtype(ctx, 0, result_type({a, b}));
  ctx.set_output(0, ctx.op("Where", {to_dtype(ctx, cond, T2O_DTYPE_BOOL), to_dtype(ctx, a, dt), to_dtype(ctx, b, dt)}));
}
