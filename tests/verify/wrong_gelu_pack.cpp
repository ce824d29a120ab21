// A deliberately wrong symbolic for torch2onnx verify's tests: aten::gelu always as the tanh
// approximation, also where the model asks for the exact (erf) form. Right for
// gelu(x, approximate='tanh'), slightly wrong for gelu(x): verify --find-mismatch must name the first
// exact gelu.
//   aten::gelu(Tensor self, *, str approximate='none') -> Tensor
#include <torch2onnx/plugin.hpp>

#include <cmath>

using namespace t2o;

T2O_SYMBOLIC_EX("aten::gelu", "", 9, T2O_SYMBOLIC_OVERRIDE) {
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
  Value x3 = ctx.op("Mul", {ctx.op("Mul", {x, x}), x});
  Value t = ctx.op("Add", {x, ctx.op("Mul", {x3, ctx.scalar(dt, 0.044715)})});
  Value inner = ctx.op("Tanh", {ctx.op("Mul", {t, ctx.scalar(dt, std::sqrt(2.0 / M_PI))})});
  Value one_plus = ctx.op("Add", {inner, ctx.scalar(dt, 1.0)});
  ctx.set_output(0, ctx.op("Mul", {ctx.op("Mul", {x, one_plus}), ctx.scalar(dt, 0.5)}));
}

T2O_PLUGIN("wrong_gelu", "1.0")
