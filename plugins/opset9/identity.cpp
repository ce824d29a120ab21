// aten::contiguous, aten::clone, aten::detach (+ detach_): the input itself (memory format and
// autograd have no ONNX meaning); aten::alias (a view of the whole tensor), aten::lift and
// aten::lift_fresh (mark a tensor literal as a fresh value): the input itself too.
#include <torch2onnx/plugin.hpp>

using namespace t2o;

T2O_SYMBOLIC("aten::contiguous", 9) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("aten::clone", 9) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("aten::detach", 9) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("aten::detach_", 9) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("aten::alias", 9) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("aten::lift", 9) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("aten::lift_fresh", 9) { ctx.set_output(0, ctx.input(0)); }
