// aten::contiguous, aten::clone, aten::detach (+ detach_): the input itself (memory format and
// autograd have no ONNX meaning).
#include <torch2onnx/plugin.hpp>

using namespace t2o;

T2O_SYMBOLIC("aten::contiguous", 9) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("aten::clone", 9) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("aten::detach", 9) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("aten::detach_", 9) { ctx.set_output(0, ctx.input(0)); }
