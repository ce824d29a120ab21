// aten::silu from opset 25 -> Mul(x, Sigmoid(x)) again: ONNX Runtime 1.30 has no Swish kernel and
// expands Swish-24's function body only in opset-24 models ("Could not find an implementation for
// Swish(24)" at 25 and 26), so opset 24 alone gets Swish (opset24/silu.cpp).
// silu(Tensor self) -> Tensor
#include <torch2onnx/plugin.hpp>

using namespace t2o;

static void silu(Ctx& ctx) {
  Value x = ctx.input(0);
  ctx.set_output(0, ctx.op("Mul", {x, ctx.op("Sigmoid", {x})}));
}

T2O_SYMBOLIC("aten::silu", 25) { silu(ctx); }
T2O_SYMBOLIC("aten::silu_", 25) { silu(ctx); }
