// aten::mish -> Mish (new in opset 18) for float16/float/double; other element types keep opset
// 9's x * tanh(softplus(x)) (Mish takes bfloat16 only from opset 22).
// mish(Tensor self) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/float64_forms.hpp"

using namespace t2o;

static void mish(Ctx& ctx) {
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  // ONNX Runtime expands Mish into its float32-only Softplus: float64 takes the exact form
  if (t2o::pack::needs_float64_form(dt)) return ctx.set_output(0, t2o::pack::f64_mish(ctx, x));
  if (dt == T2O_DTYPE_FLOAT || dt == T2O_DTYPE_DOUBLE || dt == T2O_DTYPE_FLOAT16)
    return ctx.set_output(0, ctx.op("Mish", {x}));
  ctx.set_output(0, ctx.op("Mul", {x, ctx.op("Tanh", {ctx.op("Softplus", {x})})}));
}

T2O_SYMBOLIC("aten::mish", 18) { mish(ctx); }
T2O_SYMBOLIC("aten::mish_", 18) { mish(ctx); }
