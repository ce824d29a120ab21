// aten::masked_fill(self, mask, value) (Scalar or 0-d Tensor value) -> Where(mask, value, self).
// The value takes self's dtype (PyTorch casts it); a uint8 mask is cast to bool.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void masked_fill(Ctx& ctx) {
  Value x = ctx.input(0), mask = ctx.input(1), value = ctx.input(2);
  t2o_dtype dt = x.dtype();
  if (dt == T2O_DTYPE_UNDEFINED) dt = output_dtype(ctx, 0, T2O_DTYPE_UNDEFINED);
  if (value.kind() == T2O_KIND_TENSOR && value.rank() > 0)
    unsupported(ctx.kind() + ": value must be a scalar or a 0-d tensor (rank " + std::to_string(value.rank()) + ")");
  Value m = cast_to(ctx, ctx.as_onnx(mask), T2O_DTYPE_BOOL);
  ctx.set_output(0, where_any(ctx, m, to_dtype(ctx, value, dt), x, dt));
}

}  // namespace

T2O_SYMBOLIC("aten::masked_fill", 9) { masked_fill(ctx); }
