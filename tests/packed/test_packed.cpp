// Packed sequences (pack_padded_sequence -> LSTM/GRU/RNN -> pad_packed_sequence): each case is
// exported once and run in ONNX Runtime on several sets of lengths, none of them the example run's
// (fixtures: tests/packed/make_packed_fixtures.py; dynamic cases also at other batch/time sizes).
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>
#include <utility>

namespace t2o_e2e {
namespace {

// The grid of make_packed_fixtures.py (CELL_LAYERS_DIRECTIONS_LAYOUT_STATE_ORDER_METHOD).
const std::vector<std::string> kCases = {
    "lstm_1l_uni_tf_noh_sorted_trace",     "lstm_2l_bi_bf_h0_unsorted_trace",
    "lstm_3l_bi_tf_h0_sorted_script",      "lstm_2l_uni_bf_noh_unsorted_script",
    "lstm_3l_uni_bf_h0_unsorted_trace_total9", "lstm_1l_bi_tf_noh_unsorted_script_total9",
    "gru_1l_bi_bf_h0_sorted_trace",        "gru_2l_uni_tf_noh_unsorted_script",
    "gru_3l_bi_tf_h0_unsorted_trace",      "gru_2l_bi_bf_noh_sorted_script_total8",
    "tanh_2l_bi_bf_noh_sorted_script",     "tanh_1l_uni_tf_h0_unsorted_trace",
    "tanh_3l_bi_bf_h0_unsorted_script",    "relu_1l_bi_tf_h0_sorted_script",
    "relu_2l_uni_bf_noh_unsorted_trace",   "relu_3l_uni_tf_noh_sorted_trace_total7",
    "stacked_lstm_gru_trace",              "stacked_lstm_gru_script",
};
const std::vector<std::string> kDynamicCases = {"dynamic_lstm_2l_bi_bf_h0_unsorted_trace",
                                                "dynamic_lstm_2l_bi_bf_noh_unsorted_script"};

fs::path fixtures_root() {
  const fs::path root = work_dir() / "packed";
  fs::create_directories(root);
  const RunResult made =
      run({python(), (source_dir() / "tests" / "packed" / "make_packed_fixtures.py").string(), root.string()});
  EXPECT_EQ(made.exit_code, 0) << made.describe();
  return root;
}

void export_and_compare(const std::string& name, int opset) {
  const fs::path root = fixtures_root();
  std::ifstream f(root / name / "export.json");
  ASSERT_TRUE(f) << "no export.json for " << name;
  const auto spec = nlohmann::json::parse(f);
  const fs::path out = fresh_out_dir() / (name + ".onnx");
  std::vector<std::string> args = {cli().string(), "export", (root / name / "model.pt").string(), "-o", out.string(),
                                   "--opset", std::to_string(opset)};
  for (const auto& a : spec.at("cli_args")) args.push_back(a.get<std::string>());
  const RunResult exported = run(args);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  // The padded length (the longest sequence's) varies with the lengths' values: nothing may be fixed.
  EXPECT_EQ(exported.err.find("size specialized"), std::string::npos) << exported.describe();
  const int sizes = spec.at("sizes").get<int>();
  for (int k = 0; k < sizes; ++k) {
    const fs::path dir = root / name / ("size_" + std::to_string(k));
    const RunResult cmp = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(),
                               dir.string()});
    EXPECT_EQ(cmp.exit_code, 0) << name << " opset " << opset << " size_" << k << ":\n" << cmp.describe();
  }
}

// enforce_sorted=False sorts the int64 lengths (aten::sort), which needs opset 11 (TopK takes only
// floating types before); those cases rotate through 11/13/17/18.
bool unsorted(const std::string& name) { return name.find("unsorted") != std::string::npos || name.rfind("stacked", 0) == 0; }

std::vector<std::pair<std::string, int>> params() {
  std::vector<std::pair<std::string, int>> out;
  const std::vector<int> sorted_rotation = {9, 11, 13, 17, 18}, unsorted_rotation = {11, 13, 17, 18};
  auto fast_opset = [&](size_t i) {
    const auto& r = unsorted(kCases[i]) ? unsorted_rotation : sorted_rotation;
    return r[i % r.size()];
  };
#ifdef T2O_PACKED_SLOW
  for (size_t i = 0; i < kCases.size(); ++i)
    for (int opset : {9, 13, 17})
      if (opset != fast_opset(i) && !(opset == 9 && unsorted(kCases[i]))) out.emplace_back(kCases[i], opset);
  for (const auto& name : kDynamicCases) out.emplace_back(name, 17);
#else
  for (size_t i = 0; i < kCases.size(); ++i) out.emplace_back(kCases[i], fast_opset(i));
  for (const auto& name : kDynamicCases)
    for (int opset : {11, 13, 18}) out.emplace_back(name, opset);
#endif
  return out;
}

class Packed : public ::testing::TestWithParam<std::pair<std::string, int>> {};

TEST_P(Packed, MatchesTorch) { export_and_compare(GetParam().first, GetParam().second); }

INSTANTIATE_TEST_SUITE_P(Packed, Packed, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<std::pair<std::string, int>>& info) {
                           return info.param.first + "_opset" + std::to_string(info.param.second);
                         });

#ifndef T2O_PACKED_SLOW
// Any other use of a PackedSequence's data is refused in one line naming the op and where it is.
TEST(PackedRefusal, OtherUseOfPackedDataNamesTheOp) {
  const fs::path root = fixtures_root();
  const std::string name = "refused_data_linear_script";
  std::ifstream f(root / name / "export.json");
  ASSERT_TRUE(f) << "no export.json for " << name;
  const auto spec = nlohmann::json::parse(f);
  const fs::path out = fresh_out_dir() / (name + ".onnx");
  std::vector<std::string> args = {cli().string(), "export", (root / name / "model.pt").string(), "-o", out.string()};
  for (const auto& a : spec.at("cli_args")) args.push_back(a.get<std::string>());
  const RunResult exported = run(args);
  EXPECT_EQ(exported.exit_code, 1) << exported.describe();
  const auto err = lines(exported.err);
  ASSERT_EQ(err.size(), 1u) << exported.describe();
  EXPECT_EQ(err[0].rfind("torch2onnx: error: ", 0), 0u) << err[0];
  EXPECT_NE(err[0].find("packed sequence: aten::linear at "), std::string::npos) << err[0];
  EXPECT_NE(err[0].find("reads the data of a PackedSequence"), std::string::npos) << err[0];
  EXPECT_FALSE(fs::exists(out)) << "a refused export left a file";
}
#endif

}  // namespace
}  // namespace t2o_e2e
