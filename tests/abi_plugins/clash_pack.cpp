// Claims test::good_op at 9 like the good pack, without T2O_SYMBOLIC_OVERRIDE.
#include <torch2onnx/plugin.hpp>

T2O_SYMBOLIC("test::clash_only", 9) { ctx.set_output(0, ctx.input(0)); }
T2O_SYMBOLIC("test::good_op", 9) { ctx.set_output(0, ctx.input(0)); }

T2O_PLUGIN("clash", "1.0")
