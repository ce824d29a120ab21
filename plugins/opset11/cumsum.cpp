// aten::cumsum(self, int dim, *, ScalarType? dtype=None) -> CumSum (exists from opset 11; no
// earlier form). The input is cast to the output's dtype first (`dtype`, or PyTorch's int64 for
// integer and bool inputs).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::cumsum", 11) {
  Value x = ctx.input(0), dim = ctx.input(1);
  int64_t r = known_rank(ctx, x);
  if (!dim.is_const()) unsupported("aten::cumsum: argument 'dim' computed at run time");
  int64_t axis = normalize_axis(ctx, dim.to_int(), r);
  Value in = cast_to(ctx, ctx.as_onnx(x), output_dtype(ctx, 0, x.dtype()));
  if (r == 0) return ctx.set_output(0, in);
  ctx.set_output(0, ctx.op("CumSum", {in, ctx.scalar_i64(axis)}));
}
