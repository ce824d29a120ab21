// aten::take(Tensor self, Tensor index) -> Tensor
// self flattened to 1-D, Gather along it; the result has the index's shape. Negative indices
// count from the end (made non-negative first: Gather takes them only from opset 11).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::take", 9) {
  Value x = ctx.input(0), index = ctx.input(1);
  known_rank(ctx, x);
  int64_t numel = 1;
  for (auto d : x.dims()) numel = (d < 0 || numel < 0) ? -1 : numel * d;
  Value flat = typed(ctx, ctx.op("Reshape", {ctx.as_onnx(x), ctx.const_i64({-1})}), x.dtype(), 1, {numel});
  Value idx = nonneg_index(ctx, index, flat, 0);
  ctx.set_output(0, ctx.op("Gather", {flat, idx}, {Attr::i("axis", 0)}));
}
