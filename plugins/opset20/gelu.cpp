// aten::gelu -> Gelu (new in opset 20), approximate "none" (erf) or "tanh", on float types.
// gelu(Tensor self, *, str approximate='none') -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/float64_forms.hpp"

#include "common/util.hpp"

using namespace t2o;
using namespace t2o::pack;

static void gelu(Ctx& ctx) {
  Value x = ctx.input(0);
  std::string approximate = "none";
  if (ctx.num_inputs() > 1 && ctx.input(1).kind() == T2O_KIND_STRING) approximate = ctx.input(1).to_string();
  if (approximate != "none" && approximate != "tanh") unsupported("aten::gelu: approximate='" + approximate + "'");
  if (!is_float_dtype(x.dtype())) unsupported("aten::gelu: element type " + std::to_string((int)x.dtype()) + " (float types only)");
  // ONNX Runtime runs Gelu (and the Erf of its function body) on float32 only
  if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_gelu(ctx, x, approximate == "tanh"));
  ctx.set_output(0, ctx.op("Gelu", {x}, {Attr::s("approximate", approximate)}));
}

T2O_SYMBOLIC("aten::gelu", 20) { gelu(ctx); }
T2O_SYMBOLIC("aten::gelu_", 20) { gelu(ctx); }
