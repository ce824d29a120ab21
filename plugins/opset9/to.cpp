// aten::to (every overload: dtype, device, other, prim_Device, prim_dtype), aten::type_as,
// aten::cpu(Tensor(a) self) -> Cast to the output's dtype, or the input itself when the dtype does
// not change (device moves vanish). aten::as_tensor (tensors and lists) is full.cpp's, with aten::tensor.
// aten::_to_copy(Tensor self, *, ScalarType? dtype, Layout? layout, Device? device, bool? pin_memory,
// bool non_blocking, MemoryFormat? memory_format) (core ATen IR): the same, its dtype argument read
// when the example run did not record the output's (None: the input's); a copy is the value itself
// (ONNX values are never written to). A strided layout only.
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

void to_copy(Ctx& ctx) {
  Value x = ctx.input(0);
  if (x.kind() != T2O_KIND_TENSOR) unsupported("aten::_to_copy: input is not a tensor");
  t2o_dtype fallback = x.dtype();
  Value dtype = opt_input(ctx, 1);
  if (dtype.valid()) {
    if (!dtype.is_const()) unsupported("aten::_to_copy: argument 'dtype' computed at run time");
    fallback = dtype_from_scalar_type(ctx, dtype.to_int());
  }
  Value layout = opt_input(ctx, 2);  // torch.strided is 0; sparse layouts have no ONNX form
  if (layout.valid() && !(layout.is_const() && layout.to_int() == 0))
    unsupported("aten::_to_copy: argument 'layout' is not torch.strided");
  t2o_dtype dt = output_dtype(ctx, 0, fallback);
  ctx.set_output(0, dt == x.dtype() ? x : cast_to(ctx, ctx.as_onnx(x), dt));
}

}  // namespace

T2O_SYMBOLIC("aten::_to_copy", 9) { to_copy(ctx); }
T2O_SYMBOLIC("aten::to", 9) { to(ctx); }
T2O_SYMBOLIC("aten::type_as", 9) { to(ctx); }
T2O_SYMBOLIC("aten::cpu", 9) { to(ctx); }
