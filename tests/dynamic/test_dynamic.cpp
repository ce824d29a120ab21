// Dynamic axes: a model exported at one size with --dynamic-axes runs in ONNX Runtime at other sizes
// and matches PyTorch there (fixtures: tests/dynamic/make_dynamic_fixtures.py).
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>

namespace t2o_e2e {
namespace {

// Exports fixture `name` with its export.json arguments (plus --opset when opset > 0), then runs it
// in ONNX Runtime at each of the fixture's sizes.
void export_and_run_at_sizes(const std::string& name, int opset) {
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
  if (spec.contains("example_inputs") && spec.at("example_inputs").is_string())
    args.insert(args.end(), {"--example-inputs", (root / name / spec.at("example_inputs").get<std::string>()).string()});
  if (opset > 0) {
    args.push_back("--opset");
    args.push_back(std::to_string(opset));
  }
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

class DynamicAxes : public ::testing::TestWithParam<std::string> {};

TEST_P(DynamicAxes, MatchesTorchAtOtherSizes) { export_and_run_at_sizes(GetParam(), 0); }

INSTANTIATE_TEST_SUITE_P(Dynamic, DynamicAxes,
                         ::testing::Values("cnn_batch", "size_patterns", "size_patterns_script", "bert_encoder",
                                           "gpt_decoder", "lstm_seq", "even_sizes", "halves_script",
                                           "truncated_selection", "data_sized_resize", "embedding_bag_examples",
                                           "padded_blocks"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// A model that fixes the size (a traced view to a constant shape) fails at every other size the
// exporter tries; the one-line error names them.
TEST(DynamicAxesRefused, FixedSizeModelNamesTheSizesTried) {
  const fs::path root = work_dir() / "dynamic";
  fs::create_directories(root);
  const RunResult made = run({python(), (source_dir() / "tests" / "dynamic" / "make_dynamic_fixtures.py").string(),
                              root.string(), "fixed_view"});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  const fs::path out = fresh_out_dir() / "fixed_view.onnx";
  const RunResult r = run({cli().string(), "export", (root / "fixed_view" / "model.pt").string(), "-o", out.string(),
                           "--input", "float32[2,12]", "--dynamic-axes", "x=0:batch"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.describe();
  for (const char* tried : {"x[3,12]", "x[4,12]"})
    EXPECT_NE(r.err.find(tried), std::string::npos) << tried << "\n" << r.describe();
  EXPECT_NE(r.err.find("fails at every size tried"), std::string::npos) << r.describe();
  EXPECT_FALSE(fs::exists(out));
}

// A scripted forward() returning split(x, 2, dim=1) of a dynamic axis: how many parts follows the
// axis, so the list is one ONNX sequence output from opset 11 (as torch.onnx 1.13 gives); below 11
// it is refused. (ONNX Runtime's node binding reads no sequence outputs: the sequence's values are
// compared in the op family list_results, through len, indexing, loops and cat of it.)
TEST(DynamicAxesSequence, ReturnedListOfDynamicLengthIsOneSequenceOutput) {
  const fs::path root = work_dir() / "dynamic";
  fs::create_directories(root);
  const RunResult made = run({python(), (source_dir() / "tests" / "dynamic" / "make_dynamic_fixtures.py").string(),
                              root.string(), "split_return_sequence"});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  const fs::path model = root / "split_return_sequence" / "model.pt";
  for (int opset : {11, 13, 18}) {
    const fs::path out = fresh_out_dir() / ("split_return_sequence_" + std::to_string(opset) + ".onnx");
    const RunResult r = run({cli().string(), "export", model.string(), "-o", out.string(), "--input", "float32[3,5]",
                             "--dynamic-axes", "x=1:n", "--opset", std::to_string(opset)});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    const RunResult shown = run({cli().string(), "show", out.string()});
    ASSERT_EQ(shown.exit_code, 0) << shown.describe();
    EXPECT_NE(shown.out.find("Sequence[Float(3, "), std::string::npos) << shown.describe();
    EXPECT_NE(shown.out.find("SplitToSequence[axis=1]"), std::string::npos) << shown.describe();
    EXPECT_NE(shown.out.find("return (%output_0)"), std::string::npos) << shown.describe();
  }
  const fs::path out = fresh_out_dir() / "split_return_sequence_10.onnx";
  const RunResult refused = run({cli().string(), "export", model.string(), "-o", out.string(), "--input",
                                 "float32[3,5]", "--dynamic-axes", "x=1:n", "--opset", "10"});
  EXPECT_EQ(refused.exit_code, 1) << refused.describe();
  EXPECT_EQ(lines(refused.err).size(), 1u) << refused.describe();
  for (const char* s : {"aten::split", "splitting dynamic axis 1 into equal parts (how many follows its size",
                        "needs --opset 11 (SplitToSequence)"})
    EXPECT_NE(refused.err.find(s), std::string::npos) << s << "\n" << refused.describe();
  EXPECT_FALSE(fs::exists(out));
}

// Above opset 17, a subset: Reduce*/Split/Pad forms of 18 and Gelu of 20 with dynamic dims.
class DynamicAxesHighOpset : public ::testing::TestWithParam<std::pair<std::string, int>> {};

TEST_P(DynamicAxesHighOpset, MatchesTorchAtOtherSizes) { export_and_run_at_sizes(GetParam().first, GetParam().second); }

INSTANTIATE_TEST_SUITE_P(Dynamic, DynamicAxesHighOpset,
                         ::testing::Values(std::make_pair(std::string("size_patterns"), 18),
                                           std::make_pair(std::string("bert_encoder"), 20),
                                           std::make_pair(std::string("gpt_decoder"), 23)),
                         [](const ::testing::TestParamInfo<std::pair<std::string, int>>& info) {
                           return info.param.first + "_opset" + std::to_string(info.param.second);
                         });

}  // namespace
}  // namespace t2o_e2e
