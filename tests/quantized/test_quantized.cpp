// Quantized models and ops: each fixture (tests/quantized/make_quant_fixtures.py) is exported at the
// given opset, run in ONNX Runtime and compared with PyTorch within a few quantization steps of the
// output, and the graph is checked to be in QDQ form (tests/quantized/compare_quant.js). Opsets below
// what an op needs must be refused with a message naming the opset.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <algorithm>
#include <ostream>

namespace t2o_e2e {
namespace {

struct QuantCase {
  std::string fixture;
  int opset;
  std::string expect_error;  // empty: must export and match
};

std::ostream& operator<<(std::ostream& os, const QuantCase& c) { return os << c.fixture << "@" << c.opset; }

// One fixture at all of its opsets: one test, one torch2onnx process and one node for them all.
struct QuantFixture {
  std::string fixture;
  std::vector<QuantCase> cases;
};

std::ostream& operator<<(std::ostream& os, const QuantFixture& f) { return os << f.fixture; }

class Quantized : public ::testing::TestWithParam<QuantFixture> {};

TEST_P(Quantized, MatchesTorch) {
  const QuantFixture& f = GetParam();
  const fs::path root = work_dir() / "quantized";
  const RunResult made = run(
      {python(), (source_dir() / "tests" / "quantized" / "make_quant_fixtures.py").string(), root.string(), f.fixture});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  const fs::path fix = root / f.fixture;
  const auto meta = read_meta(fix);
  const fs::path out_dir = fresh_out_dir();
  std::vector<std::vector<std::string>> jobs;
  std::vector<fs::path> outs;
  for (const auto& c : f.cases) {
    outs.push_back(out_dir / (f.fixture + "_" + std::to_string(c.opset) + ".onnx"));
    std::vector<std::string> args = {(fix / "model.pt").string(), "-o", outs.back().string(), "--opset",
                                     std::to_string(c.opset)};
    for (const auto& s : meta.at("cli_inputs")) {
      args.push_back("--input");
      args.push_back(s.get<std::string>());
    }
    if (meta.contains("cli_extra"))  // e.g. --dynamic-axes: the compared inputs then have other shapes
      for (const auto& s : meta.at("cli_extra")) args.push_back(s.get<std::string>());
    jobs.push_back(args);
  }
  const auto exported = export_batch(jobs, out_dir / "batch");
  std::vector<std::pair<fs::path, fs::path>> comparisons;
  std::vector<size_t> compared;
  // A model the PyTorch that made it cannot load (make_quant_fixtures.py: 2.14 and 4-bit tables): an
  // exporter built against that libtorch must refuse it with the loader's reason, on one line.
  const std::string cannot_reload = meta.value("torch_cannot_reload", std::string());
  size_t unloadable = 0;
  for (size_t k = 0; k < f.cases.size(); ++k) {
    const QuantCase& c = f.cases[k];
    if (!cannot_reload.empty() && exported[k].exit_code != 0 &&
        exported[k].error.find("cannot load TorchScript: ") != std::string::npos &&
        exported[k].error.find("require a storage of at least") != std::string::npos) {
      EXPECT_NE(exported[k].exit_code, -1) << c << ": crashed\n" << exported[k].describe(jobs[k]);
      EXPECT_FALSE(fs::exists(outs[k])) << "a refused export left " << outs[k];
      ++unloadable;
      continue;
    }
    if (!c.expect_error.empty()) {
      EXPECT_NE(exported[k].exit_code, 0) << c << ": exported, expected a refusal\n" << exported[k].describe(jobs[k]);
      EXPECT_NE(exported[k].exit_code, -1) << c << ": crashed\n" << exported[k].describe(jobs[k]);
      EXPECT_NE(exported[k].error.find(c.expect_error), std::string::npos)
          << c << ": expected '" << c.expect_error << "'\n" << exported[k].describe(jobs[k]);
      EXPECT_FALSE(fs::exists(outs[k])) << "a refused export left " << outs[k];
      continue;
    }
    if (exported[k].exit_code != 0) {
      ADD_FAILURE() << c << ": export failed\n" << exported[k].describe(jobs[k]);
      continue;
    }
    comparisons.push_back({outs[k], fix});
    compared.push_back(k);
  }
  const auto results =
      compare_batch(comparisons, out_dir / "batch", source_dir() / "tests" / "quantized" / "compare_quant.js");
  for (size_t i = 0; i < results.size(); ++i) {
    const QuantCase& c = f.cases[compared[i]];
    EXPECT_EQ(results[i].exit_code, 0) << c << ": ONNX Runtime disagrees with PyTorch\n" << results[i].text;
    std::cout << c.fixture << " @ opset " << c.opset << ":\n" << results[i].text << "\n";
  }
  if (unloadable > 0)
    GTEST_SKIP() << f.fixture << ": " << cannot_reload << "; torch2onnx's libtorch refuses it as well at "
                 << unloadable << " of " << f.cases.size() << " opsets, nothing to compare";
}

std::string case_name(const ::testing::TestParamInfo<QuantFixture>& info) { return info.param.fixture; }

// Cases grouped by fixture, in first-seen order.
std::vector<QuantFixture> by_fixture(const std::vector<QuantCase>& cases) {
  std::vector<QuantFixture> out;
  for (const auto& c : cases) {
    auto it = std::find_if(out.begin(), out.end(), [&](const QuantFixture& f) { return f.fixture == c.fixture; });
    if (it == out.end()) {
      out.push_back({c.fixture, {}});
      it = out.end() - 1;
    }
    it->cases.push_back(c);
  }
  return out;
}

// Op-level cases (make_quant_fixtures.py OPS): every form at 10 (QuantizeLinear's first opset),
// 13 (per-channel axis, Clip on uint8) and 17 (LayerNormalization); per-channel ones from 13.
const char* const kOps[] = {"op_quantize_dequantize", "op_conv1d", "op_conv2d", "op_conv2d_relu", "op_conv3d",
                            "op_conv3d_relu",
                            "op_conv_transpose2d", "op_linear", "op_linear_relu", "op_linear_3d",
                            "op_add", "op_add_relu", "op_mul", "op_cat", "op_hardswish", "op_leaky_relu",
                            "op_elu", "op_sigmoid", "op_relu6", "op_batch_norm2d", "op_batch_norm2d_relu",
                            "op_instance_norm", "op_group_norm", "op_layer_norm", "op_pooling",
                            "op_upsample", "op_fake_quant_tensor", "op_dynamic_linear", "op_fixed_grids_quint8",
                            "op_fixed_grids_qint8", "op_quantized_sigmoid_grid", "op_quantized_dtype"};
const char* const kPerChannelOps[] = {"op_conv2d_per_channel", "op_linear_per_channel", "op_quantize_per_channel",
                                      "op_fake_quant_channel", "op_fake_quant_0_127"};
// opset 10 does not have DynamicQuantizeLinear (11) or HardSwish (14, decomposed below).
const char* const kModels[] = {"tv_resnet18", "tv_resnet18_script", "tv_mobilenet_v2", "tv_shufflenet_v2_x1_0",
                               "qat", "qat_fused", "dyn_linear", "dyn_lstm", "dyn_gru"};

std::vector<QuantCase> op_cases() {
  std::vector<QuantCase> v;
  for (const char* op : kOps)
    for (int opset : {10, 13, 17}) {
      if (std::string(op) == "op_dynamic_linear" && opset == 10) {
        v.push_back({op, opset, "needs --opset 11"});
        continue;
      }
      v.push_back({op, opset, ""});
    }
  for (const char* op : kPerChannelOps) {
    v.push_back({op, 10, "needs --opset 13"});
    v.push_back({op, 13, ""});
    v.push_back({op, 17, ""});
  }
  return v;
}

// Quantized embeddings (make_quant_fixtures.py EMBEDDINGS): Gather of a uint8 table, per-row float
// scale and bias, the bag sums; the form changes at 10 (Slice), 11 and 13 (Unsqueeze/ReduceSum axes).
const char* const kEmbeddings[] = {"emb_byte", "emb_byte_trace", "emb_4bit", "emb_4bit_trace", "emb_bag_byte",
                                   "emb_bag_byte_trace", "emb_bag_byte_psw", "emb_bag_byte_last", "emb_bag_byte_2d",
                                   "emb_bag_4bit", "emb_bag_4bit_trace", "emb_bag_4bit_psw", "emb_bag_byte_modes",
                                   "emb_bag_4bit_modes", "emb_bag_fused", "emb_bag_pruned"};

std::vector<QuantCase> embedding_cases() {
  std::vector<QuantCase> v;
  for (const char* e : kEmbeddings)
    for (int opset : {9, 11, 13, 17}) v.push_back({e, opset, ""});
  // dynamic numbers of indices and bags: Range from opset 11
  for (int opset : {11, 13, 17}) v.push_back({"emb_bag_byte_dynamic", opset, ""});
  v.push_back({"emb_bag_byte_dynamic", 9, "a dynamic number of indices needs --opset 11 (Range)"});
  // torch.ao 1.13's 4-bit quantized Embedding calls the 8-bit op on its table: refused, naming it.
  v.push_back({"emb_4bit_unrepaired", 13, "argument 'weight' is a 4-bit table but the op reads 8-bit rows"});
  return v;
}

std::vector<QuantCase> model_cases() {
  std::vector<QuantCase> v;
  for (const char* m : kModels) v.push_back({m, 17, ""});
  v.push_back({"tv_resnet18", 13, ""});
  v.push_back({"qat", 13, ""});
  v.push_back({"dyn_gru", 11, ""});  // DynamicQuantizeLinear's first opset
  v.push_back({"dyn_gru", 10, "needs --opset 11"});
  return v;
}

#if T2O_QUANTIZED_SLOW
// The larger models (binary t2o_quantized_slow_tests, label quantized_slow).
INSTANTIATE_TEST_SUITE_P(SlowModels, Quantized,
                         ::testing::ValuesIn(by_fixture({QuantCase{"tv_mobilenet_v3_large", 17, ""},
                                                         QuantCase{"tv_googlenet", 17, ""},
                                                         QuantCase{"tv_inception_v3", 17, ""},
                                                         QuantCase{"tv_resnet50", 17, ""},
                                                         QuantCase{"tv_mobilenet_v3_large", 13, ""}})),
                         case_name);
#else
INSTANTIATE_TEST_SUITE_P(Ops, Quantized, ::testing::ValuesIn(by_fixture(op_cases())), case_name);
INSTANTIATE_TEST_SUITE_P(Models, Quantized, ::testing::ValuesIn(by_fixture(model_cases())), case_name);
INSTANTIATE_TEST_SUITE_P(Embeddings, Quantized, ::testing::ValuesIn(by_fixture(embedding_cases())), case_name);
#endif

}  // namespace
}  // namespace t2o_e2e
