// aten::to (every overload: dtype, device, other, prim_Device, prim_dtype), aten::type_as,
// aten::cpu(Tensor(a) self) -> Cast to the output's dtype, or the input itself when the dtype does
// not change (device moves vanish). aten::as_tensor (tensors and lists) is full.cpp's, with aten::tensor.
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void to(Ctx& ctx) {
  Value x = ctx.input(0);
  if (x.kind() != T2O_KIND_TENSOR) unsupported(ctx.kind() + ": input is not a tensor");
  t2o_dtype dt = output_dtype(ctx, 0, x.dtype());
  ctx.set_output(0, dt == x.dtype() ? x : cast_to(ctx, ctx.as_onnx(x), dt));
}

}  // namespace

T2O_SYMBOLIC("aten::to", 9) { to(ctx); }
T2O_SYMBOLIC("aten::type_as", 9) { to(ctx); }
T2O_SYMBOLIC("aten::cpu", 9) { to(ctx); }
