// A complex graph input is exported as its (real, imaginary) pairs: `--input complex64[4,8]` gives a
// float32 [4, 8, 2] ONNX input, which the pair-aware ops (ifft, abs, imag) read as complex values.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace t2o_e2e {
namespace {

TEST(ComplexPairs, ComplexInputIsGivenAsPairs) {
  const fs::path fx = work_dir() / "complex_input";
  const RunResult made =
      run({python(), (source_dir() / "tests" / "patterns" / "make_complex_input_fixture.py").string(), fx.string()});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  for (int opset : {17, 20}) {
    const fs::path out = fresh_out_dir() / ("complex_input_" + std::to_string(opset) + ".onnx");
    const RunResult r = run({cli().string(), "export", (fx / "model.pt").string(), "-o", out.string(), "--opset",
                             std::to_string(opset), "--input", "complex64[4,8]", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    const RunResult cmp = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(), fx.string()});
    EXPECT_EQ(cmp.exit_code, 0) << "opset " << opset << "\n" << cmp.describe();
  }
}

}  // namespace
}  // namespace t2o_e2e
