// Single-op tests: every family in tests/ops/cases/*.py, every case at each of its opsets:
// TorchScript -> torch2onnx export -> ONNX Runtime -> compared with PyTorch's outputs.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <algorithm>
#include <fstream>

namespace t2o_e2e {
namespace {

std::vector<std::string> families() {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(source_dir() / "tests" / "ops" / "cases"))
    if (entry.path().extension() == ".py" && entry.path().stem().string()[0] != '_')
      out.push_back(entry.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

class OpFamily : public ::testing::TestWithParam<std::string> {};

TEST_P(OpFamily, ExportsAndMatchesTorch) {
  const std::string family = GetParam();
  const fs::path root = work_dir() / "ops";
  fs::create_directories(root);
  const RunResult made = run({python(), (source_dir() / "tests" / "ops" / "make_op_fixtures.py").string(),
                              root.string(), family});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  std::ifstream index_file(root / family / "cases.json");
  ASSERT_TRUE(index_file) << "no cases.json for " << family;
  const auto index = nlohmann::json::parse(index_file);
  const fs::path out_dir = fresh_out_dir();
  int exported = 0;
  for (const auto& c : index.at("cases")) {
    const std::string name = c.at("name");
    if (!c.at("error").is_null()) {
      ADD_FAILURE() << family << "/" << name << ": PyTorch could not build the case: " << c.at("error");
      continue;
    }
    const fs::path fx = root / family / name;
    const auto meta = read_meta(fx);
    for (int opset : c.at("opsets").get<std::vector<int>>()) {
      const std::string label = family + "/" + name + " opset " + std::to_string(opset);
      const fs::path out = out_dir / (name + "_" + std::to_string(opset) + ".onnx");
      std::vector<std::string> args = {cli().string(), "export", (fx / "model.pt").string(), "-o", out.string(),
                                       "--opset", std::to_string(opset), "-q"};
      for (const auto& spec : meta.at("cli_inputs")) {
        args.push_back("--input");
        args.push_back(spec.get<std::string>());
      }
      for (const auto& a : c.at("cli_args")) args.push_back(a.get<std::string>());
      const RunResult r = run(args);
      if (r.exit_code != 0) {
        ADD_FAILURE() << label << ": export failed\n" << r.describe();
        continue;
      }
      const RunResult cmp =
          run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(), fx.string()});
      if (cmp.exit_code != 0) {
        ADD_FAILURE() << label << ": ONNX Runtime disagrees with PyTorch\n" << cmp.describe();
        continue;
      }
      // The same model on the case's further input sets (another branch, another trip count).
      bool all_match = true;
      for (int k = 0; k < c.value("more", 0); ++k) {
        const fs::path more = fx / ("more_" + std::to_string(k));
        const RunResult m =
            run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(), more.string()});
        if (m.exit_code != 0) {
          ADD_FAILURE() << label << ": ONNX Runtime disagrees with PyTorch on input set more_" << k << "\n"
                        << m.describe();
          all_match = false;
        }
      }
      if (!all_match) continue;
      ++exported;
      fs::remove(out);
    }
  }
  std::cout << family << ": " << exported << " case x opset exports matched PyTorch\n";
}

INSTANTIATE_TEST_SUITE_P(Ops, OpFamily, ::testing::ValuesIn(families()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace t2o_e2e
