// aten::cumprod -> CumProd (new in opset 26). The input is cast to the output's dtype first
// (`dtype`, or PyTorch's int64 for integer and bool inputs), as for cumsum.
// cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::cumprod", 26) {
  Value x = ctx.input(0), dim = ctx.input(1);
  int64_t r = known_rank(ctx, x);
  if (!dim.is_const()) unsupported("aten::cumprod: argument 'dim' computed at run time");
  int64_t axis = normalize_axis(ctx, dim.to_int(), r);
  t2o_dtype dt = output_dtype(ctx, 0, x.dtype());
  static const t2o_dtype kCumProdTypes[] = {T2O_DTYPE_FLOAT, T2O_DTYPE_DOUBLE, T2O_DTYPE_FLOAT16, T2O_DTYPE_BFLOAT16,
                                            T2O_DTYPE_INT32, T2O_DTYPE_INT64, T2O_DTYPE_UINT32, T2O_DTYPE_UINT64};
  bool supported = false;
  for (auto t : kCumProdTypes) supported = supported || t == dt;
  if (!supported) unsupported("aten::cumprod: result element type " + std::to_string((int)dt) + " (CumProd has no such type)");
  Value in = cast_to(ctx, ctx.as_onnx(x), dt);
  if (r == 0) return ctx.set_output(0, in);
  ctx.set_output(0, ctx.op("CumProd", {in, ctx.scalar_i64(axis)}));
}
