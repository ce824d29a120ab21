// Model zoo: each torchvision model (random weights, eval mode, small resolution) exports and matches
// PyTorch in ONNX Runtime at rtol 2e-3 (fixtures: tests/zoo/make_zoo_fixtures.py; the full list at
// native resolutions runs in scripts/zoo_full.sh).
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <ostream>

namespace t2o_e2e {
namespace {

// One model at each of its opsets: one test, one torch2onnx process and one node for them.
struct ZooCase {
  std::string model;
  std::vector<int> opsets;
};

std::ostream& operator<<(std::ostream& os, const ZooCase& c) { return os << c.model; }

class Zoo : public ::testing::TestWithParam<ZooCase> {};

TEST_P(Zoo, MatchesTorch) {
  const ZooCase& c = GetParam();
  const fs::path root = work_dir() / "zoo";
  const RunResult made =
      run({python(), (source_dir() / "tests" / "zoo" / "make_zoo_fixtures.py").string(), root.string(), c.model});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  const fs::path fix = root / c.model;
  const auto meta = read_meta(fix);

  const fs::path out_dir = fresh_out_dir();
  std::vector<std::vector<std::string>> jobs;
  std::vector<std::pair<fs::path, fs::path>> comparisons;
  for (int opset : c.opsets) {
    const fs::path out = out_dir / (c.model + "_" + std::to_string(opset) + ".onnx");
    std::vector<std::string> args = {(fix / "model.pt").string(), "-o", out.string(), "--opset", std::to_string(opset)};
    for (const auto& s : meta.at("cli_inputs")) {
      args.push_back("--input");
      args.push_back(s.get<std::string>());
    }
    jobs.push_back(args);
    comparisons.push_back({out, fix});
  }
  const auto exported = export_batch(jobs, out_dir / "batch");
  std::vector<std::pair<fs::path, fs::path>> ok;
  std::vector<int> ok_opsets;
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (exported[k].exit_code != 0) {
      ADD_FAILURE() << c.model << " opset " << c.opsets[k] << ": export failed\n" << exported[k].describe(jobs[k]);
      continue;
    }
    ok.push_back(comparisons[k]);
    ok_opsets.push_back(c.opsets[k]);
  }
  const auto results = compare_batch(ok, out_dir / "batch");
  for (size_t i = 0; i < results.size(); ++i)
    EXPECT_EQ(results[i].exit_code, 0) << c.model << " opset " << ok_opsets[i] << ":\n" << results[i].text;
  // The ONNX files are 10s-100s of MB each: don't keep them.
  std::error_code ec;
  fs::remove_all(out_dir, ec);
}

// Same list as CI in make_zoo_fixtures.py.
const char* const kModels[] = {
    "alexnet", "vgg11_bn", "resnet18", "resnet50", "resnext50_32x4d", "wide_resnet50_2",
    "mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small", "efficientnet_b0",
    "efficientnet_v2_s", "densenet121", "squeezenet1_0", "squeezenet1_1", "shufflenet_v2_x0_5",
    "shufflenet_v2_x1_0", "mnasnet0_5", "mnasnet1_0", "googlenet", "inception_v3",
    "regnet_x_400mf", "regnet_y_400mf", "convnext_tiny", "vit_b_32", "maxvit_t", "swin_t", "swin_v2_t",
    "fcn_resnet50", "deeplabv3_resnet50", "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large",
    "mobilenet_v3_small_script", "efficientnet_b0_script", "shufflenet_v2_x0_5_script", "swin_t_script"};
// Also at opset 13 (Split/Squeeze/ReduceSum take inputs from 13; LayerNorm is decomposed below 17).
const char* const kOpset13[] = {"resnet18", "mobilenet_v3_small", "efficientnet_b0", "shufflenet_v2_x0_5",
                                "convnext_tiny", "vit_b_32", "maxvit_t", "lraspp_mobilenet_v3_large"};
// Above 17, a representative subset per opset (to keep CI short): 18 Split num_outputs (shufflenet's
// chunk), Reduce* axes inputs, Pad axes; 20 Gelu (ViT, ConvNeXt), 23 ir_version 11 with LayerNorm,
// attention, hardswish and Resize; 26 Swish (EfficientNet's SiLU, from 24).
const std::pair<const char*, int> kHighOpsets[] = {
    {"resnet18", 18}, {"shufflenet_v2_x0_5", 18}, {"lraspp_mobilenet_v3_large", 18}, {"swin_t", 18},
    {"vit_b_32", 20}, {"convnext_tiny", 20}, {"efficientnet_b0", 20},
    {"mobilenet_v3_small", 23}, {"maxvit_t", 23}, {"deeplabv3_mobilenet_v3_large", 23},
    {"efficientnet_b0", 26}, {"vit_b_32", 26}};
std::string case_name(const ::testing::TestParamInfo<ZooCase>& info) { return info.param.model; }

// Every model with its opsets, in kModels' order.
std::vector<ZooCase> all_cases() {
  std::vector<ZooCase> v;
  for (const char* m : kModels) v.push_back({m, {17}});
  auto add = [&](const std::string& m, int opset) {
    for (auto& c : v)
      if (c.model == m) {
        c.opsets.push_back(opset);
        return;
      }
    v.push_back({m, {opset}});
  };
  for (const char* m : kOpset13) add(m, 13);
  for (const auto& [m, opset] : kHighOpsets) add(m, opset);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Zoo, Zoo, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace t2o_e2e
