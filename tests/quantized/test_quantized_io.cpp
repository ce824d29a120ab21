// Quantized tensors at the graph boundary (tests/quantized/make_qio_fixtures.py): each fixture is
// exported at the opsets where the form changes, run in ONNX Runtime on the fixture's inputs and on a
// second set on another grid, fed and compared as torch.onnx 1.13 unpacks quantized tensors (integer
// values, scale, zero point: values, shapes and dtypes; tests/ort/compare.js). Refusals name why.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>
#include <ostream>
#include <regex>
#include <sstream>

namespace t2o_e2e {
namespace {

struct QioCase {
  std::string fixture;
  std::vector<std::pair<int, std::string>> opsets;  // each opset, and the refusal expected there ("": must match)
};

std::ostream& operator<<(std::ostream& os, const QioCase& c) { return os << c.fixture; }

class QuantizedIo : public ::testing::TestWithParam<QioCase> {};

TEST_P(QuantizedIo, MatchesTorch) {
  const QioCase& c = GetParam();
  const fs::path root = work_dir() / "quantized_io";
  const RunResult made = run(
      {python(), (source_dir() / "tests" / "quantized" / "make_qio_fixtures.py").string(), root.string(), "--all"});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  const fs::path fix = root / c.fixture;
  const auto meta = read_meta(fix);  // the first input set's meta.json (must exist)
  std::ifstream case_file(fix / "case.json");
  ASSERT_TRUE(case_file) << "no " << (fix / "case.json");
  const auto spec = nlohmann::json::parse(case_file);
  const fs::path out_dir = fresh_out_dir();
  std::vector<std::vector<std::string>> jobs;
  std::vector<fs::path> outs;
  for (const auto& [opset, refusal] : c.opsets) {
    outs.push_back(out_dir / (c.fixture + "_" + std::to_string(opset) + ".onnx"));
    std::vector<std::string> args = {(fix / "model.pt").string(), "-o", outs.back().string(), "--opset",
                                     std::to_string(opset)};
    for (const auto& s : spec.at("cli_inputs")) {  // none for a model saved by torch2onnx.save
      args.push_back("--input");
      args.push_back(s.get<std::string>());
    }
    for (const auto& s : spec.at("extra")) args.push_back(s.get<std::string>());
    jobs.push_back(args);
  }
  const auto exported = export_batch(jobs, out_dir / "batch");
  std::vector<std::pair<fs::path, fs::path>> comparisons;
  std::vector<std::string> labels;
  for (size_t k = 0; k < c.opsets.size(); ++k) {
    const std::string label = c.fixture + " @ opset " + std::to_string(c.opsets[k].first);
    const std::string& expect_error = c.opsets[k].second;
    if (!expect_error.empty()) {
      EXPECT_NE(exported[k].exit_code, 0) << label << ": exported, expected a refusal\n" << exported[k].describe(jobs[k]);
      EXPECT_NE(exported[k].exit_code, -1) << label << ": crashed\n" << exported[k].describe(jobs[k]);
      EXPECT_NE(exported[k].error.find(expect_error), std::string::npos)
          << label << ": expected '" << expect_error << "'\n" << exported[k].describe(jobs[k]);
      EXPECT_FALSE(fs::exists(outs[k])) << "a refused export left " << outs[k];
      continue;
    }
    if (exported[k].exit_code != 0) {
      ADD_FAILURE() << label << ": export failed\n" << exported[k].describe(jobs[k]);
      continue;
    }
    for (const fs::path& set : {fix, fix / "second"}) {
      comparisons.push_back({outs[k], set});
      labels.push_back(label + (set == fix ? " (example inputs)" : " (second inputs)"));
    }
  }
  const auto results = compare_batch(comparisons, out_dir / "compare");
  ASSERT_EQ(results.size(), comparisons.size());
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].exit_code, 0) << labels[i] << ": ONNX Runtime disagrees with PyTorch\n" << results[i].text;
    std::cout << labels[i] << ":\n" << results[i].text << "\n";
  }
  // The result's three ONNX outputs are named after it, as the inputs are (checked by the feeds).
  if (c.opsets[0].second.empty() && fs::exists(outs[0]) && spec.at("extra").empty()) {
    const RunResult shown = run({cli().string(), "show", outs[0].string()});
    ASSERT_EQ(shown.exit_code, 0) << shown.describe();
    // No node of the main graph is left unread (the boundary's QuantizeLinear/DequantizeLinear): each
    // value it defines ("  %a : T, %b : T = onnx::Op(...)") is read by a node, a subgraph or the return.
    std::istringstream lines_in(shown.out);
    for (std::string line; std::getline(lines_in, line);) {
      if (line.rfind("  %", 0) != 0 || line.find(" = onnx::") == std::string::npos) continue;
      const std::string defs = line.substr(0, line.find(" = onnx::"));
      static const std::regex name_re("%([A-Za-z0-9_.]+) :");
      for (std::sregex_iterator m(defs.begin(), defs.end(), name_re), end; m != end; ++m) {
        const std::string name = std::regex_replace((*m)[1].str(), std::regex("\\."), "\\.");
        const std::regex use("%" + name + "(?![A-Za-z0-9_.])");
        const auto n = std::distance(std::sregex_iterator(shown.out.begin(), shown.out.end(), use), std::sregex_iterator());
        EXPECT_GE(n, 2) << c.fixture << ": %" << (*m)[1].str() << " is never read\n" << shown.out;
      }
    }
    for (const auto& t : meta.at("outputs"))
      if (t.at("dtype") == "uint8" || t.at("dtype") == "int8") {
        EXPECT_NE(shown.out.find("output_0_value"), std::string::npos) << shown.out;
        EXPECT_NE(shown.out.find("output_0_scale"), std::string::npos) << shown.out;
        EXPECT_NE(shown.out.find("output_0_zero_point"), std::string::npos) << shown.out;
        break;
      }
  }
}

std::string case_name(const ::testing::TestParamInfo<QioCase>& info) { return info.param.fixture; }

// QuantizeLinear/DequantizeLinear from 10; the per-axis (per-channel) form from 13; Conv's bias and
// Gemm change at 11 (opset 10: Add after Conv; linear's MatMul + Add, which ONNX Runtime's QDQ fusion
// rejects at 10, see plugins/quantized/README.md: linear from 11).
const QioCase kCases[] = {
    {"qio_conv", {{10, ""}, {13, ""}}},
    {"qio_conv_per_channel", {{10, "needs --opset 13"}, {13, ""}, {17, ""}}},
    {"qio_linear", {{11, ""}, {13, ""}}},
    {"qio_add", {{10, ""}, {13, ""}}},
    {"qio_mul", {{10, ""}, {13, ""}}},
    {"qio_relu", {{10, ""}, {13, ""}}},
    {"qio_relu_qint8", {{10, ""}, {13, ""}}},
    {"qio_pool", {{10, ""}, {13, ""}}},
    {"qio_quantize", {{10, ""}, {13, ""}}},
    {"qio_quantize_qint8", {{10, ""}, {13, ""}}},
    {"qio_both", {{10, ""}, {13, ""}}},
    {"qio_saved", {{10, ""}, {13, ""}}},
    {"qio_dequantized", {{10, ""}, {13, ""}}},
    // torch.onnx 1.13 returns a quantized result as one scale and zero point
    {"qio_per_channel_result", {{13, "is a per-channel quantized tensor"}}},
    // a returned list (or tuple) of quantized results: one triple per item, named by its flattened position
    {"qio_list", {{10, ""}, {13, ""}}},
    {"qio_list_trace", {{10, ""}, {13, ""}}},
    {"qio_list_dequantized", {{10, ""}, {13, ""}}},
    {"qio_list_relu", {{10, ""}, {13, ""}}},
    // a grid chosen in an `if` before quantize_per_tensor: run-time scale and zero point (second inputs: the
    // other branch); branches quantizing on their own grids are refused
    {"qio_branch_grid", {{10, ""}, {13, ""}}},
    {"qio_branch_two_grids", {{13, "is a quantized tensor whose grid (scale, zero point) is chosen at run time"}}},
    {"qio_dequantize_qint32", {{10, ""}, {13, ""}}},
    {"qio_relu_qint32", {{13, "is a qint32 tensor: QuantizeLinear gives only uint8/int8"}}},
    // sigmoid, tanh, hardsigmoid: results on PyTorch's fixed grids (integer values, scale, zero point and
    // dtype compared), also when the argument comes on another grid; read by a quantized op; saved by
    // torch2onnx.save
    {"qio_sigmoid", {{10, ""}, {13, ""}}},
    {"qio_sigmoid_qint8", {{10, ""}, {13, ""}}},
    {"qio_tanh", {{10, ""}, {13, ""}}},
    {"qio_tanh_qint8", {{10, ""}, {13, ""}}},
    {"qio_hardsigmoid", {{10, ""}, {13, ""}}},
    {"qio_hardsigmoid_qint8", {{10, ""}, {13, ""}}},
    {"qio_sigmoid_add", {{10, ""}, {13, ""}}},
    {"qio_sigmoid_saved", {{10, ""}, {13, ""}}},
    // quantized::sigmoid on a grid QNNPACK cannot make (the exporter's engine without FBGEMM)
    {"qio_quantized_sigmoid", {{10, ""}, {13, ""}}},
    // two fixed grids, one per branch: which one is a run-time choice
    {"qio_fixed_grids_branch", {{13, "is a quantized tensor whose grid (scale, zero point) is chosen at run time"}}},
    {"qio_sigmoid_qint32", {{13, "its qint32 result is on PyTorch's fixed grid (scale 2.32831e-10, zero point 0)"}}},
};

INSTANTIATE_TEST_SUITE_P(Boundary, QuantizedIo, ::testing::ValuesIn(kCases), case_name);

// verify feeds random quantized arguments on random grids as torch.onnx's three inputs and compares each
// quantized result's integer values, scale and zero point; a .pt saved by torch2onnx.save needs no --input.
TEST(QuantizedIoVerify, FeedsAndCompares) {
  const fs::path root = work_dir() / "quantized_io";
  const RunResult made = run(
      {python(), (source_dir() / "tests" / "quantized" / "make_qio_fixtures.py").string(), root.string(), "--all"});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  const std::vector<std::vector<std::string>> runs = {
      {"qio_relu", "--input", "quint8[2,3,4]", "--opset", "13"},
      {"qio_add", "--input", "quint8[2,3,4]", "--input", "quint8[2,3,4]", "--opset", "10"},
      {"qio_saved", "--opset", "13"},
      {"qio_quantize_qint8", "--input", "float32[2,3]"},
  };
  for (const auto& r : runs) {
    std::vector<std::string> argv = {cli().string(), "verify", (root / r[0] / "model.pt").string(), "--runs", "2"};
    argv.insert(argv.end(), r.begin() + 1, r.end());
    const RunResult v = run(argv);
    EXPECT_EQ(v.exit_code, 0) << v.describe();
    EXPECT_NE(v.out.find("all outputs match (2 run(s))"), std::string::npos) << v.describe();
    EXPECT_NE(v.out.find("output_0_scale float32[]"), std::string::npos) << v.describe();
    EXPECT_NE(v.out.find(r[0] == "qio_quantize_qint8" ? "output_0_zero_point int8[]" : "output_0_zero_point uint8[]"),
              std::string::npos)
        << v.describe();
    if (r[0] != "qio_quantize_qint8")  // random grids: each run says its argument's scale and zero point
      EXPECT_NE(v.out.find("zero point"), std::string::npos) << v.describe();
  }
  // Quantized arguments are made at random only: input files are refused in one line (usage, exit 2).
  const RunResult files = run({cli().string(), "verify", (root / "qio_relu" / "model.pt").string(), "--input",
                               "quint8[2,3,4]", "--inputs", root.string()});
  EXPECT_EQ(files.exit_code, 2) << files.describe();
  EXPECT_NE(files.err.find("quantized inputs (quint8[2,3,4]) are made at random only"), std::string::npos)
      << files.describe();
}

}  // namespace
}  // namespace t2o_e2e
