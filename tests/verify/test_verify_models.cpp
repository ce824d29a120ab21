// torch2onnx verify on the zoo (torchvision models at the CI size) and the NLP models of the
// dynamic-axes tests (BERT-style encoder, GPT-style decoder: also at the other size of their dynamic
// axes). Label verify_slow: each case exports and runs the model in libtorch and ONNX Runtime.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>

namespace t2o_e2e {
namespace {

// Deep float32 models accumulate absolute rounding of ~1e-5 on elements near zero: atol 1e-4 (the
// zoo's own tests allow rtol 2e-3 on |b| + 1).
const std::vector<std::string> kTolerance = {"--rtol", "1e-3", "--atol", "1e-4"};

nlohmann::json verify_json(std::vector<std::string> args) {
  args.insert(args.begin(), {cli().string(), "verify"});
  args.insert(args.end(), kTolerance.begin(), kTolerance.end());
  args.insert(args.end(), {"--json", "-q"});
  const RunResult r = run(args);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  return r.exit_code <= 1 && !r.out.empty() ? nlohmann::json::parse(r.out) : nlohmann::json();
}

class VerifyZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(VerifyZoo, MatchesLibtorch) {
  const std::string model = GetParam();
  const fs::path root = work_dir() / "zoo";  // shared with tests/zoo (the generator locks and reuses)
  const RunResult made =
      run({python(), (source_dir() / "tests" / "zoo" / "make_zoo_fixtures.py").string(), root.string(), model});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  const auto meta = read_meta(root / model);
  std::vector<std::string> args = {(root / model / "model.pt").string()};
  for (const auto& s : meta.at("cli_inputs")) args.insert(args.end(), {"--input", s.get<std::string>()});
  const auto report = verify_json(args);
  ASSERT_FALSE(report.is_null());
  EXPECT_EQ(report.at("match"), true) << report.dump(1);
}

INSTANTIATE_TEST_SUITE_P(Models, VerifyZoo,
                         ::testing::Values("resnet50", "mobilenet_v3_small", "efficientnet_b0", "vit_b_32", "swin_t",
                                           "deeplabv3_mobilenet_v3_large"));

class VerifyNlp : public ::testing::TestWithParam<std::string> {};

TEST_P(VerifyNlp, MatchesLibtorchAtBothSizes) {
  const std::string model = GetParam();
  const fs::path root = work_dir() / "dynamic";  // shared with tests/dynamic
  const RunResult made =
      run({python(), (source_dir() / "tests" / "dynamic" / "make_dynamic_fixtures.py").string(), root.string(), model});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  const auto spec = nlohmann::json::parse(std::ifstream(root / model / "export.json"));
  std::vector<std::string> args = {(root / model / "model.pt").string(), "--input-range", "0:100"};
  for (const auto& a : spec.at("cli_args")) args.push_back(a.get<std::string>());
  const auto report = verify_json(args);
  ASSERT_FALSE(report.is_null());
  EXPECT_EQ(report.at("match"), true) << report.dump(1);
  EXPECT_EQ(report.at("runs").size(), 2u);  // the --input size and the dynamic axes one larger
}

INSTANTIATE_TEST_SUITE_P(Models, VerifyNlp, ::testing::Values("bert_encoder", "gpt_decoder"));

}  // namespace
}  // namespace t2o_e2e
