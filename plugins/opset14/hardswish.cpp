// aten::hardswish -> HardSwish (opset 14; before, x * HardSigmoid(x) in opset9/activations.cpp).
// ONNX Runtime runs HardSwish on float32 only: float64 takes common/float64_forms.hpp's form.
#include <torch2onnx/plugin.hpp>

#include "common/float64_forms.hpp"

using namespace t2o;
using namespace t2o::pack;

static void hardswish(Ctx& ctx) {
  Value x = ctx.input(0);
  if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_hardswish(ctx, x));
  ctx.set_output(0, ctx.op("HardSwish", {x}));
}

T2O_SYMBOLIC("aten::hardswish", 14) { hardswish(ctx); }
T2O_SYMBOLIC("aten::hardswish_", 14) { hardswish(ctx); }
