// Claims test::good_op at 9 like the good pack, with T2O_SYMBOLIC_OVERRIDE.
#include <torch2onnx/plugin.hpp>

T2O_SYMBOLIC_EX("test::good_op", "", 9, T2O_SYMBOLIC_OVERRIDE) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("test::override_only", 9) { ctx.set_output(0, ctx.input(0)); }

T2O_PLUGIN("override", "1.0")
