// The RMSNorm pattern pass: every case of tests/ops/cases/rms_norm.py exported at opsets 22 and 23;
// at 23 the exact patterns hold an RMSNormalization node and no ReduceMean, the near-misses (cases
// named near_miss_*) none and their ReduceMean; at 22 no case holds one.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>
#include <iterator>

namespace t2o_e2e {
namespace {

size_t count_of(const std::string& bytes, const std::string& what) {
  size_t n = 0;
  for (size_t at = bytes.find(what); at != std::string::npos; at = bytes.find(what, at + what.size())) ++n;
  return n;
}

TEST(RmsNormPattern, FusedOnlyWhenExactAndAtOpset23) {
  const fs::path root = work_dir() / "patterns";
  fs::create_directories(root);
  const RunResult made =
      run({python(), (source_dir() / "tests" / "ops" / "make_op_fixtures.py").string(), root.string(), "rms_norm"});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  std::ifstream index_file(root / "rms_norm" / "cases.json");
  ASSERT_TRUE(index_file);
  const auto index = nlohmann::json::parse(index_file);
  const fs::path out_dir = fresh_out_dir();
  struct Job {
    std::string label;
    fs::path out;
    bool expect_fused;
  };
  std::vector<Job> jobs;
  std::vector<std::vector<std::string>> args;
  for (const auto& c : index.at("cases")) {
    const std::string name = c.at("name");
    ASSERT_TRUE(c.at("error").is_null()) << name << ": " << c.at("error");
    const fs::path fx = root / "rms_norm" / name;
    const bool near_miss = name.rfind("near_miss_", 0) == 0;
    const auto meta = read_meta(fx);
    for (int opset : {22, 23}) {
      jobs.push_back({name + " opset " + std::to_string(opset), out_dir / (name + "_" + std::to_string(opset) + ".onnx"),
                      opset == 23 && !near_miss});
      std::vector<std::string> a = {(fx / "model.pt").string(), "-o", jobs.back().out.string(), "--opset",
                                    std::to_string(opset)};
      for (const auto& spec : meta.at("cli_inputs")) a.insert(a.end(), {"--input", spec.get<std::string>()});
      args.push_back(a);
    }
  }
  const auto results = export_batch(args, out_dir / "batch");
  int checked = 0, fused = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    ASSERT_EQ(results[k].exit_code, 0) << jobs[k].label << "\n" << results[k].describe(args[k]);
    std::ifstream f(jobs[k].out, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    // The op type also names the node and its output: present or absent is what the bytes can tell.
    EXPECT_EQ(count_of(bytes, "RMSNormalization") > 0, jobs[k].expect_fused) << jobs[k].label;
    if (jobs[k].expect_fused) EXPECT_EQ(count_of(bytes, "ReduceMean"), 0u) << jobs[k].label << ": pattern ops left beside the fused node";
    else EXPECT_GE(count_of(bytes, "ReduceMean"), 1u) << jobs[k].label;
    fused += jobs[k].expect_fused;
    ++checked;
  }
  EXPECT_EQ(checked, 22);
  EXPECT_EQ(fused, 8);
}

// BatchNorm folding (core/src/prepare/fold_batch_norm.cpp): every case of
// tests/ops/cases/fold_batch_norm.py (whose values the ops family compares) exported at its opsets,
// with and without --no-constant-folding: folded cases hold no BatchNormalization node, the nofold_*
// ones (a BN that cannot be folded exactly) one, and every case one with --no-constant-folding.
TEST(BatchNormFold, FoldedExactlyWhereItIsExact) {
  const fs::path root = work_dir() / "patterns";
  fs::create_directories(root);
  const RunResult made = run(
      {python(), (source_dir() / "tests" / "ops" / "make_op_fixtures.py").string(), root.string(), "fold_batch_norm"});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  std::ifstream index_file(root / "fold_batch_norm" / "cases.json");
  ASSERT_TRUE(index_file);
  const auto index = nlohmann::json::parse(index_file);
  const fs::path out_dir = fresh_out_dir();
  struct Job {
    std::string label;
    fs::path out;
    bool expect_bn;
  };
  std::vector<Job> jobs;
  std::vector<std::vector<std::string>> args;
  for (const auto& c : index.at("cases")) {
    const std::string name = c.at("name");
    ASSERT_TRUE(c.at("error").is_null()) << name << ": " << c.at("error");
    const fs::path fx = root / "fold_batch_norm" / name;
    const bool foldable = name.rfind("nofold_", 0) != 0;
    const auto meta = read_meta(fx);
    for (int opset : c.at("opsets").get<std::vector<int>>())
      for (bool folding : {true, false}) {
        const std::string tag = name + "_" + std::to_string(opset) + (folding ? "" : "_nofold");
        jobs.push_back({tag, out_dir / (tag + ".onnx"), !(folding && foldable)});
        std::vector<std::string> a = {(fx / "model.pt").string(), "-o", jobs.back().out.string(), "--opset",
                                      std::to_string(opset)};
        for (const auto& spec : meta.at("cli_inputs")) a.insert(a.end(), {"--input", spec.get<std::string>()});
        if (!folding) a.push_back("--no-constant-folding");
        args.push_back(a);
      }
  }
  const auto results = export_batch(args, out_dir / "batch");
  int folded = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    ASSERT_EQ(results[k].exit_code, 0) << jobs[k].label << "\n" << results[k].describe(args[k]);
    std::ifstream f(jobs[k].out, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(count_of(bytes, "BatchNormalization") > 0, jobs[k].expect_bn) << jobs[k].label;
    folded += !jobs[k].expect_bn;
  }
  EXPECT_EQ(folded, 19);  // the foldable cases at each of their opsets
}

}  // namespace
}  // namespace t2o_e2e
