// aten::_reshape_from_tensor: Reshape with the target shape given as a 1-D integer tensor
// (-1 infers a dim, as in reshape).
//
// _reshape_from_tensor(Tensor self, Tensor shape) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::_reshape_from_tensor", 9) {
  Value shape = ctx.input(1);
  if (shape.kind() != T2O_KIND_TENSOR || shape.rank() != 1)
    unsupported("aten::_reshape_from_tensor: argument 'shape' must be a 1-D tensor");
  if (!is_int_dtype(shape.dtype())) fail("aten::_reshape_from_tensor: argument 'shape' must hold integers");
  ctx.set_output(0, ctx.op("Reshape", {ctx.input(0), cast_to(ctx, ctx.as_onnx(shape), T2O_DTYPE_INT64)}));
}
