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
  // Every case x opset of the family through one torch2onnx process, then every comparison through
  // one node + ONNX Runtime: a family's hundreds of exports pay libtorch's start-up once.
  struct Export {
    std::string label;
    std::vector<std::string> args;
    fs::path out, fixture;
    int more = 0;
  };
  std::vector<Export> exports;
  // Cases (or some opsets of a case) the PyTorch that made the fixtures refuses, with why
  // (make_op_fixtures.py TORCH_REFUSES, TORCH_OPSETS).
  std::vector<std::string> skipped;
  for (const auto& c : index.at("cases")) {
    const std::string name = c.at("name");
    if (c.contains("narrowed")) skipped.push_back(name + ": " + c.at("narrowed").get<std::string>());
    if (c.contains("skipped") && !c.at("skipped").is_null()) {
      skipped.push_back(name + ": " + c.at("skipped").get<std::string>());
      continue;
    }
    if (!c.at("error").is_null()) {
      ADD_FAILURE() << family << "/" << name << ": PyTorch could not build the case: " << c.at("error");
      continue;
    }
    const fs::path fx = root / family / name;
    const auto meta = read_meta(fx);
    for (int opset : c.at("opsets").get<std::vector<int>>()) {
      Export e;
      e.label = family + "/" + name + " opset " + std::to_string(opset);
      e.out = out_dir / (name + "_" + std::to_string(opset) + ".onnx");
      e.fixture = fx;
      e.more = c.value("more", 0);
      e.args = {(fx / "model.pt").string(), "-o", e.out.string(), "--opset", std::to_string(opset)};
      for (const auto& spec : meta.at("cli_inputs")) {
        e.args.push_back("--input");
        e.args.push_back(spec.get<std::string>());
      }
      for (const auto& a : c.at("cli_args")) e.args.push_back(a.get<std::string>());
      exports.push_back(std::move(e));
    }
  }
  std::vector<std::vector<std::string>> jobs;
  for (const auto& e : exports) jobs.push_back(e.args);
  const auto exported = export_batch(jobs, out_dir / "batch");

  // The example inputs, then the case's further input sets (another branch, another trip count).
  std::vector<std::pair<fs::path, fs::path>> comparisons;
  std::vector<std::pair<size_t, std::string>> compared;  // export index, which input set
  for (size_t k = 0; k < exports.size(); ++k) {
    if (exported[k].exit_code != 0) {
      ADD_FAILURE() << exports[k].label << ": export failed\n" << exported[k].describe(exports[k].args);
      continue;
    }
    comparisons.push_back({exports[k].out, exports[k].fixture});
    compared.push_back({k, ""});
    for (int m = 0; m < exports[k].more; ++m) {
      const std::string more = "more_" + std::to_string(m);
      comparisons.push_back({exports[k].out, exports[k].fixture / more});
      compared.push_back({k, more});
    }
  }
  const auto results = compare_batch(comparisons, out_dir / "batch");
  std::vector<bool> all_match(exports.size(), true);
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& [k, set] = compared[i];
    if (results[i].exit_code == 0) continue;
    all_match[k] = false;
    ADD_FAILURE() << exports[k].label << ": ONNX Runtime disagrees with PyTorch"
                  << (set.empty() ? "" : " on input set " + set) << "\n"
                  << "model: " << comparisons[i].first.string() << "\nfixture: " << comparisons[i].second.string()
                  << "\nexit " << results[i].exit_code << "\n" << results[i].text;
  }
  int matched = 0;
  for (size_t k = 0; k < exports.size(); ++k) {
    if (exported[k].exit_code != 0 || !all_match[k]) continue;
    ++matched;
    fs::remove(exports[k].out);
  }
  std::cout << family << ": " << matched << " case x opset exports matched PyTorch\n";
  if (!skipped.empty()) {
    std::string names;
    for (const auto& s : skipped) names += "\n  " + s;
    GTEST_SKIP() << family << ": " << skipped.size() << " of " << index.at("cases").size()
                 << " cases skipped in whole or at some opsets, the PyTorch that made the fixtures refuses them:"
                 << names;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, OpFamily, ::testing::ValuesIn(families()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace t2o_e2e
