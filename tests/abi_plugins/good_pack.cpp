// A well-formed pack: test::good_op at opsets 9 and 13 (default domain), one in a custom domain,
// and a custom-op schema.
#include <torch2onnx/plugin.hpp>

T2O_SCHEMA("test::good_op(Tensor x) -> Tensor");

// Identity: binds input 0 to output 0 (the loading test calls it through a fake host).
T2O_SYMBOLIC("test::good_op", 9) { ctx.set_output(0, ctx.input(0)); }

T2O_SYMBOLIC("test::good_op", 13) {
  ctx.set_output(0, ctx.input(0));
  ctx.set_output(0, ctx.input(0));  // twice: tells the 13 version apart through the fake host
}

T2O_SYMBOLIC_EX("test::good_op", "com.example", 1, 0u) { ctx.set_output(0, ctx.input(0)); }

T2O_PLUGIN("good", "1.2.3")
