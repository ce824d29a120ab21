// Module state after freezing (fixtures: tests/freezing/make_freezing_fixtures.py): what forward()
// only reads becomes constants and the model matches PyTorch in ONNX Runtime; state forward() writes
// and reads back gives one call's values (matching one PyTorch call on the saved state) with one
// warning per attribute; a write a private copy of the state would not reproduce (tied buffers) is
// refused with one `torch2onnx: error:` line naming the attribute, its module and where.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>

namespace t2o_e2e {
namespace {

fs::path fixtures_root() {
  const fs::path root = work_dir() / "freezing";
  fs::create_directories(root);
  const RunResult made =
      run({python(), (source_dir() / "tests" / "freezing" / "make_freezing_fixtures.py").string(), root.string()});
  EXPECT_EQ(made.exit_code, 0) << made.describe();
  return root;
}

nlohmann::json read_spec(const fs::path& root, const std::string& name) {
  std::ifstream f(root / name / "export.json");
  EXPECT_TRUE(f) << "no export.json for " << name;
  return f ? nlohmann::json::parse(f) : nlohmann::json();
}

RunResult export_case(const fs::path& root, const std::string& name, const fs::path& out, int opset) {
  const auto spec = read_spec(root, name);
  std::vector<std::string> args = {cli().string(), "export", (root / name / "model.pt").string(), "-o", out.string(),
                                   "--opset", std::to_string(opset)};
  for (const auto& a : spec.at("cli_args")) args.push_back(a.get<std::string>());
  return run(args);
}

class ModuleState : public ::testing::TestWithParam<std::string> {};

TEST_P(ModuleState, ExportsAndMatchesTorch) {
  const fs::path root = fixtures_root();
  for (int opset : {9, 17}) {
    const fs::path out = fresh_out_dir() / (GetParam() + "_" + std::to_string(opset) + ".onnx");
    const RunResult exported = export_case(root, GetParam(), out, opset);
    ASSERT_EQ(exported.exit_code, 0) << exported.describe();
    // One warning per attribute written inside forward(), none for a model that only reads.
    const auto spec = read_spec(root, GetParam());
    const auto& warned = spec.at("state_warnings");
    size_t state_lines = 0;
    for (const auto& line : lines(exported.err))
      state_lines += line.find("is written inside forward(); the ONNX model computes one call's values") !=
                     std::string::npos;
    EXPECT_EQ(state_lines, warned.size()) << exported.describe();
    for (const auto& a : warned)
      EXPECT_NE(exported.err.find("state '" + a.get<std::string>() + "' is written inside forward()"),
                std::string::npos)
          << a << "\n" << exported.describe();
    const RunResult cmp = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(),
                               (root / GetParam() / "size_0").string()});
    EXPECT_EQ(cmp.exit_code, 0) << "opset " << opset << ":\n" << cmp.describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Freezing, ModuleState,
                         ::testing::Values("tensor_attrs_script", "tensor_attrs_trace", "number_attrs_script",
                                           "optional_attrs_script", "training_flag_script", "buffers_script",
                                           "buffers_trace", "containers_script", "containers_trace",
                                           "blocks_script", "submodule_attrs_script", "returned_attr_script",
                                           "state_written_elsewhere_script", "interface_script",
                                           "counter_script", "running_mean_script", "inplace_buffer_script",
                                           "inplace_buffer_trace", "conditional_write_script", "loop_state_script",
                                           "optional_cache_script"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// verify runs libtorch on each input set: a model that changes its state must start every run from the
// saved state, as its ONNX model does, or the second run would differ (counter_script: x * calls).
TEST(ModuleStateVerify, EachRunStartsFromTheSavedState) {
  const fs::path root = fixtures_root();
  for (const std::string name : {"counter_script", "loop_state_script"}) {
    std::vector<std::string> args = {cli().string(), "verify", (root / name / "model.pt").string(), "--runs", "3"};
    const auto spec = read_spec(root, name);
    for (const auto& a : spec.at("cli_args")) args.push_back(a.get<std::string>());
    const RunResult r = run(args);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.out.find("run 3/3"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("all outputs match (3 run(s))"), std::string::npos) << r.out;
  }
}

class MutatedState : public ::testing::TestWithParam<std::string> {};

TEST_P(MutatedState, RefusedNamingTheAttribute) {
  const fs::path root = fixtures_root();
  const auto spec = read_spec(root, GetParam());
  const fs::path out = fresh_out_dir() / (GetParam() + ".onnx");
  const RunResult exported = export_case(root, GetParam(), out, 17);
  EXPECT_EQ(exported.exit_code, 1) << exported.describe();
  EXPECT_FALSE(exported.crashed()) << exported.describe();
  const auto err = lines(exported.err);
  ASSERT_EQ(err.size(), 1u) << exported.describe();
  EXPECT_EQ(err[0].rfind("torch2onnx: error: ", 0), 0u) << err[0];
  EXPECT_NE(err[0].find("changes module state at run time"), std::string::npos) << err[0];
  EXPECT_NE(err[0].find(spec.at("refusal").get<std::string>()), std::string::npos) << err[0];
  EXPECT_NE(err[0].find(".py:"), std::string::npos) << "no source line: " << err[0];
  EXPECT_FALSE(fs::exists(out)) << "a refused export left a file";
}

INSTANTIATE_TEST_SUITE_P(Freezing, MutatedState,
                         ::testing::Values("tied_buffers_script"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace t2o_e2e
