// torchvision's detection models (random weights, traced at 240x320, make_detection_fixtures.py)
// exported at opsets 11 and 17 with dynamic H and W, run in ONNX Runtime on the example image and
// on an image of another size, and compared with PyTorch by matching detections
// (compare_detections.js says how). Each test prints the export time, node counts and matched
// fractions.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <chrono>
#include <fstream>

#ifndef T2O_DETECTION_MODELS
#error "T2O_DETECTION_MODELS: the comma-separated models this binary tests"
#endif

namespace t2o_e2e {
namespace {

fs::path detection_fixture(const std::string& name) {
  const fs::path root = work_dir() / "detection";
  fs::create_directories(root);
  const RunResult made = run({python(), (source_dir() / "tests" / "detection" / "make_detection_fixtures.py").string(),
                              root.string(), name});
  EXPECT_EQ(made.exit_code, 0) << made.describe();
  return root / name;
}

nlohmann::json export_spec(const fs::path& dir) {
  std::ifstream f(dir / "export.json");
  return nlohmann::json::parse(f);
}

std::vector<std::string> models() {
  std::vector<std::string> out;
  std::string list = T2O_DETECTION_MODELS;
  size_t start = 0;
  while (start < list.size()) {
    size_t comma = list.find(',', start);
    out.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

struct Param {
  std::string model;
  int opset;
};

void PrintTo(const Param& p, std::ostream* os) { *os << p.model << " at opset " << p.opset; }

class DetectionModel : public ::testing::TestWithParam<Param> {};

TEST_P(DetectionModel, ExportsAndMatchesTorchAtTwoSizes) {
  const Param p = GetParam();
  const fs::path dir = detection_fixture(p.model);
  const auto spec = export_spec(dir);
  const fs::path out = fresh_out_dir() / (p.model + ".onnx");
  std::vector<std::string> args = {cli().string(), "export", (dir / "model.pt").string(), "-o", out.string(),
                                   "--opset", std::to_string(p.opset)};
  for (const auto& a : spec.at("cli_args")) args.push_back(a.get<std::string>());
  const auto start = std::chrono::steady_clock::now();
  const RunResult exported = run(args);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  std::string summary;
  for (const auto& line : lines(exported.err))
    if (line.find("wrote ") != std::string::npos) summary = line;
  std::cout << p.model << " opset " << p.opset << ": export " << seconds << " s; " << summary << std::endl;
  for (const auto& line : lines(exported.err))
    if (line.find("warning") != std::string::npos) std::cout << "  " << line << std::endl;

  for (int k = 0; k < spec.at("sizes").get<int>(); ++k) {
    const fs::path size_dir = dir / ("size_" + std::to_string(k));
    const RunResult cmp = run({node(), (source_dir() / "tests" / "detection" / "compare_detections.js").string(),
                               out.string(), size_dir.string()});
    EXPECT_EQ(cmp.exit_code, 0) << "size_" << k << " (" << (k == 0 ? "the example image" : "another size")
                                << "):\n" << cmp.describe();
    std::cout << "  size_" << k << ": " << cmp.out << cmp.err;
  }
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (const auto& m : models())
    for (int opset : {11, 17}) out.push_back({m, opset});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Detection, DetectionModel, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return info.param.model + "_opset" + std::to_string(info.param.opset);
                         });

}  // namespace
}  // namespace t2o_e2e
