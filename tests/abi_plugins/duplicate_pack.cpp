// Registers test::dup at opset 9 twice.
#include <torch2onnx/plugin.hpp>

T2O_SYMBOLIC("test::dup_first", 9) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("test::dup", 9) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("test::dup", 9) { ctx.set_output(0, ctx.input(0)); }

T2O_PLUGIN("duplicate", "1.0")
