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
  int checked = 0, fused = 0;
  for (const auto& c : index.at("cases")) {
    const std::string name = c.at("name");
    ASSERT_TRUE(c.at("error").is_null()) << name << ": " << c.at("error");
    const fs::path fx = root / "rms_norm" / name;
    const bool near_miss = name.rfind("near_miss_", 0) == 0;
    const auto meta = read_meta(fx);
    for (int opset : {22, 23}) {
      const fs::path out = out_dir / (name + "_" + std::to_string(opset) + ".onnx");
      std::vector<std::string> args = {cli().string(), "export", (fx / "model.pt").string(), "-o", out.string(),
                                       "--opset", std::to_string(opset), "-q"};
      for (const auto& spec : meta.at("cli_inputs")) args.insert(args.end(), {"--input", spec.get<std::string>()});
      const RunResult r = run(args);
      ASSERT_EQ(r.exit_code, 0) << name << " opset " << opset << "\n" << r.describe();
      std::ifstream f(out, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      const bool expect_fused = opset == 23 && !near_miss;
      // The op type also names the node and its output: present or absent is what the bytes can tell.
      EXPECT_EQ(count_of(bytes, "RMSNormalization") > 0, expect_fused) << name << " opset " << opset;
      if (expect_fused) EXPECT_EQ(count_of(bytes, "ReduceMean"), 0u) << name << ": pattern ops left beside the fused node";
      else EXPECT_GE(count_of(bytes, "ReduceMean"), 1u) << name << " opset " << opset;
      fused += expect_fused;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 22);
  EXPECT_EQ(fused, 8);
}

}  // namespace
}  // namespace t2o_e2e
