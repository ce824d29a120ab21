// aten::conj_physical, aten::conj: the complex conjugate; a real tensor is its own conjugate (identity).
// ONNX has no complex tensors, so a complex input is refused.
//
// conj_physical(Tensor self) -> Tensor
#include <torch2onnx/plugin.hpp>

using namespace t2o;

T2O_SYMBOLIC("aten::conj_physical", 9) {
  Value x = ctx.input(0);
  if (x.dtype() == T2O_DTYPE_COMPLEX64 || x.dtype() == T2O_DTYPE_COMPLEX128)
    unsupported("aten::conj_physical: complex tensor 'self' (ONNX has no complex tensors)");
  ctx.set_output(0, x);
}

// aten::conj(Tensor(a) self) -> Tensor(a): the lazy conjugate view; on a real tensor, itself.
T2O_SYMBOLIC("aten::conj", 9) {
  Value x = ctx.input(0);
  if (x.dtype() == T2O_DTYPE_COMPLEX64 || x.dtype() == T2O_DTYPE_COMPLEX128)
    unsupported("aten::conj: complex tensor 'self' (ONNX has no complex tensors)");
  ctx.set_output(0, x);
}
