// aten::where(condition, self, other) (Tensor and Scalar overloads) -> Where, operands cast to the
// output's dtype (PyTorch promotes self and other). The one-argument where(condition) is
// nonzero(condition, as_tuple=True): the rows of NonZero, one index tensor per dim.
#include <torch2onnx/plugin.hpp>

#include "common/promote.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::where", 9) {
  if (ctx.num_inputs() == 1) {
    // where(condition) -> Tensor[]: one 1-D int64 index tensor per dim, the rows of NonZero.
    Value cond = ctx.input(0);
    int32_t r = known_rank(ctx, cond);
    Value nz = ctx.op("NonZero", {to_dtype(ctx, cond, T2O_DTYPE_BOOL)});
    std::vector<Value> rows;
    for (int32_t i = 0; i < r; ++i) rows.push_back(ctx.op("Gather", {nz, ctx.scalar_i64(i)}, {Attr::i("axis", 0)}));
    return ctx.set_output(0, ctx.make_list(rows));
  }
  Value cond = ctx.input(0), a = ctx.input(1), b = ctx.input(2);
  t2o_dtype dt = output_dtype(ctx, 0, result_type({a, b}));
  ctx.set_output(0, ctx.op("Where", {to_dtype(ctx, cond, T2O_DTYPE_BOOL), to_dtype(ctx, a, dt), to_dtype(ctx, b, dt)}));
}
