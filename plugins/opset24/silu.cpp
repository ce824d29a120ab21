// aten::silu -> Swish (new in opset 24) with alpha 1: x * sigmoid(x), on float types.
// silu(Tensor self) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/float64_forms.hpp"

#include "common/util.hpp"

using namespace t2o;
using namespace t2o::pack;

static void silu(Ctx& ctx) {
  Value x = ctx.input(0);
  if (!is_float_dtype(x.dtype())) unsupported(ctx.kind() + ": element type " + std::to_string((int)x.dtype()) + " (float types only)");
  if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_silu(ctx, x));
  ctx.set_output(0, ctx.op("Swish", {x}, {Attr::f("alpha", 1.0)}));
}

T2O_SYMBOLIC("aten::silu", 24) { silu(ctx); }
T2O_SYMBOLIC("aten::silu_", 24) { silu(ctx); }
