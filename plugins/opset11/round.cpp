// aten::round(self) and round.decimals(self, decimals) -> Round (opset 11; half to even, as
// PyTorch). Registered from 11 only: below, the host reports that the op needs opset 11.
// Integers are unchanged.
#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void round(Ctx& ctx) {
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  if (!is_float_dtype(dt)) return ctx.set_output(0, x);
  int64_t decimals = 0;
  if (ctx.num_inputs() > 1) {
    Value d = ctx.input(1);
    if (!d.is_const()) unsupported("aten::round: argument 'decimals' must be constant");
    decimals = d.to_int();
  }
  if (decimals == 0) return ctx.set_output(0, ctx.op("Round", {x}));
  // round(x * 10^d) / 10^d, as PyTorch computes it.
  Value scale = ctx.scalar(dt, std::pow(10.0, (double)decimals));
  ctx.set_output(0, ctx.op("Div", {ctx.op("Round", {ctx.op("Mul", {x, scale})}), scale}));
}

}  // namespace

T2O_SYMBOLIC("aten::round", 11) { round(ctx); }
T2O_SYMBOLIC("aten::round_", 11) { round(ctx); }
