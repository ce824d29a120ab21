// aten::item: the one element of a tensor as a number (int for integer tensors, float for floating
// ones, bool for bool), a run-time scalar (0-d ONNX tensor) or a constant when the tensor is one.
//
// item(Tensor self) -> Scalar
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::item", 9) {
  Value t = ctx.input(0);
  if (t.kind() != T2O_KIND_TENSOR) return ctx.set_output(0, t);
  t2o_dtype dt = t.dtype();
  if (dt == T2O_DTYPE_COMPLEX64 || dt == T2O_DTYPE_COMPLEX128) unsupported("aten::item: complex tensor 'self'");
  bool is_float = is_float_dtype(dt), is_bool = dt == T2O_DTYPE_BOOL;
  if (t.is_const()) {
    if (is_float) return ctx.set_output(0, ctx.make_float(t.to_float()));
    if (is_bool) return ctx.set_output(0, ctx.make_bool(t.to_bool()));
    return ctx.set_output(0, ctx.make_int(t.to_int()));
  }
  Value v = ctx.as_onnx(t);
  if (t.rank() != 0) v = ctx.op("Reshape", {v, ctx.const_i64({})});  // one element, any rank -> 0-d
  // TorchScript numbers: int is int64; a float keeps the tensor's floating dtype.
  t2o_dtype scalar_dt = is_float ? dt : is_bool ? T2O_DTYPE_BOOL : T2O_DTYPE_INT64;
  v = cast_to(ctx, typed(ctx, v, dt, 0), scalar_dt);
  ctx.set_output(0, ctx.make_dynamic_scalar(v, is_float ? T2O_KIND_FLOAT : is_bool ? T2O_KIND_BOOL : T2O_KIND_INT));
}
