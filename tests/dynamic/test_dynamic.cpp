// Dynamic axes: a model exported at one size with --dynamic-axes runs in ONNX Runtime at other sizes
// and matches PyTorch there (fixtures: tests/dynamic/make_dynamic_fixtures.py).
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>

namespace t2o_e2e {
namespace {

class DynamicAxes : public ::testing::TestWithParam<std::string> {};

TEST_P(DynamicAxes, MatchesTorchAtOtherSizes) {
  const std::string name = GetParam();
  const fs::path root = work_dir() / "dynamic";
  fs::create_directories(root);
  const RunResult made = run({python(), (source_dir() / "tests" / "dynamic" / "make_dynamic_fixtures.py").string(),
                              root.string(), name});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  std::ifstream f(root / name / "export.json");
  ASSERT_TRUE(f) << "no export.json";
  const auto spec = nlohmann::json::parse(f);

  const fs::path out = fresh_out_dir() / (name + ".onnx");
  std::vector<std::string> args = {cli().string(), "export", (root / name / "model.pt").string(), "-o", out.string()};
  for (const auto& a : spec.at("cli_args")) args.push_back(a.get<std::string>());
  const RunResult exported = run(args);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  // A dynamic export that had to fix a size says so; these models must not need to.
  EXPECT_EQ(exported.err.find("size specialized"), std::string::npos) << exported.describe();

  const int sizes = spec.at("sizes").get<int>();
  for (int k = 0; k < sizes; ++k) {
    const fs::path size_dir = root / name / ("size_" + std::to_string(k));
    const RunResult cmp = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(),
                               size_dir.string()});
    EXPECT_EQ(cmp.exit_code, 0) << "size_" << k << ":\n" << cmp.describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Dynamic, DynamicAxes,
                         ::testing::Values("cnn_batch", "size_patterns", "size_patterns_script", "bert_encoder",
                                           "gpt_decoder", "lstm_seq"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace t2o_e2e
