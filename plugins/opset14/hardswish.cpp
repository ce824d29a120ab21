// aten::hardswish -> HardSwish (opset 14; before, x * HardSigmoid(x) in opset9/activations.cpp).
#include <torch2onnx/plugin.hpp>

using namespace t2o;

T2O_SYMBOLIC("aten::hardswish", 14) { ctx.set_output(0, ctx.op("HardSwish", {ctx.input(0)})); }
T2O_SYMBOLIC("aten::hardswish_", 14) { ctx.set_output(0, ctx.op("HardSwish", {ctx.input(0)})); }
