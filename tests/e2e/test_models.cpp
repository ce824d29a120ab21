// End to end: TorchScript fixture -> torch2onnx export -> ONNX Runtime (tests/ort/compare.js) ->
// compared with the outputs PyTorch computed from the same TorchScript file.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace t2o_e2e {
namespace {

struct ModelCase {
  std::string model;  // a make_fixtures.py name
  int opset;
};

std::ostream& operator<<(std::ostream& os, const ModelCase& c) { return os << c.model << " opset " << c.opset; }

// Exports FIXTURE's model.pt with its cli_inputs (plus EXTRA arguments) to OUT and checks it in ORT.
void export_and_compare(const fs::path& fixture_dir, const fs::path& model_pt, const fs::path& out, int opset,
                        const std::vector<std::string>& extra = {}) {
  const auto meta = read_meta(fixture_dir);
  std::vector<std::string> args = {cli().string(), "export", model_pt.string(), "-o", out.string()};
  if (opset > 0) {
    args.push_back("--opset");
    args.push_back(std::to_string(opset));
  }
  for (const auto& spec : meta.at("cli_inputs")) {
    args.push_back("--input");
    args.push_back(spec.get<std::string>());
  }
  args.insert(args.end(), extra.begin(), extra.end());

  const RunResult exported = run(args);
  ASSERT_FALSE(exported.crashed()) << exported.describe();
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  ASSERT_TRUE(fs::is_regular_file(out)) << "no output file " << out << "\n" << exported.describe();
  ASSERT_GT(fs::file_size(out), 0u) << exported.describe();
  // The temp file beside OUT is gone: OUT is the only file in its directory.
  EXPECT_EQ(list_dir(out.parent_path()), std::vector<std::string>{out.filename().string()});

  const RunResult compared =
      run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(), fixture_dir.string()});
  ASSERT_EQ(compared.exit_code, 0) << compared.describe() << "export was:\n" << exported.describe();
  std::cout << compared.out;
}

class ExportCompare : public ::testing::TestWithParam<ModelCase> {};

TEST_P(ExportCompare, MatchesTorch) {
  const ModelCase& c = GetParam();
  const fs::path fx = fixture(c.model);
  const fs::path out_dir = fresh_out_dir();
  const fs::path out = out_dir / (c.model + ".onnx");
  export_and_compare(fx, fx / "model.pt", out, c.opset);
  // The big models' .onnx files are hundreds of MB: keep them only when a test fails.
  if (!HasFailure()) fs::remove_all(out_dir);
}

std::vector<ModelCase> model_cases() {
  std::vector<ModelCase> v;
  for (const char* m : {"tiny_cnn", "tiny_cnn_script", "tiny_cnn_example", "resnet18", "resnet18_script",
                        "resnet50", "mobilenet_v2", "alexnet", "squeezenet1_0", "squeezenet1_1", "vgg11"})
    v.push_back({m, 17});
  for (const char* m : {"resnet18", "mobilenet_v2"})
    for (int opset : {9, 13}) v.push_back({m, opset});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Models, ExportCompare, ::testing::ValuesIn(model_cases()),
                         [](const ::testing::TestParamInfo<ModelCase>& info) {
                           return info.param.model + "_opset" + std::to_string(info.param.opset);
                         });

// The default opset (17) is used when --opset is absent.
TEST(ExportDefaults, NoOpsetFlag) {
  const fs::path fx = fixture("tiny_cnn");
  const fs::path out_dir = fresh_out_dir();
  export_and_compare(fx, fx / "model.pt", out_dir / "tiny_cnn.onnx", /*opset=*/0);
}

// Weights as ONNX external data: OUT.onnx plus OUT.onnx.data, nothing else, and ORT runs it.
void export_external_and_compare(const std::string& model, const std::vector<std::string>& extra) {
  const fs::path fx = fixture(model);
  const auto meta = read_meta(fx);
  const fs::path out_dir = fresh_out_dir();
  const fs::path out = out_dir / (model + ".onnx");
  std::vector<std::string> args = {cli().string(), "export", (fx / "model.pt").string(), "-o", out.string(), "-q"};
  for (const auto& spec : meta.at("cli_inputs")) {
    args.push_back("--input");
    args.push_back(spec.get<std::string>());
  }
  args.insert(args.end(), extra.begin(), extra.end());
  const RunResult exported = run(args);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  EXPECT_EQ(list_dir(out_dir), (std::vector<std::string>{model + ".onnx", model + ".onnx.data"}));
  // The model proper holds no weights; the .data file holds (at least) all of them.
  EXPECT_LT(fs::file_size(out), 1u << 20);
  EXPECT_GE(fs::file_size(out_dir / (model + ".onnx.data")), fs::file_size(fx / "model.pt") / 2);
  const RunResult compared =
      run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(), fx.string()});
  ASSERT_EQ(compared.exit_code, 0) << compared.describe();
  std::cout << compared.out;
  if (!::testing::Test::HasFailure()) fs::remove_all(out_dir);
}

TEST(ExternalData, ForcedForASmallModel) { export_external_and_compare("resnet18", {"--external-data"}); }

// 2.4 GB of weights: external data without being asked, weights copied from the .pt file.
TEST(ExternalData, AutomaticAbove2GB) { export_external_and_compare("mlp_2g", {}); }

// The program's head start (tools/weights_head_start.hpp): the .pt's weight records copied into
// OUT.data while libtorch starts. What it writes is byte for byte what it writes without one
// (T2O_NO_HEAD_START=1), whether the writer keeps the copy (every weight as the .pt has it) or not
// (folding replaced the first one); the kept copy runs in ORT; a failed export leaves nothing.
TEST(ExternalData, HeadStartChangesNoByte) {
  const fs::path fx = fixture("resnet18");
  const auto meta = read_meta(fx);
  const fs::path out_dir = fresh_out_dir();
  auto export_to = [&](const std::string& name, const std::vector<std::string>& extra, bool head_start) {
    std::vector<std::string> args = {cli().string(), "export", (fx / "model.pt").string(), "-o",
                                     (out_dir / name / "m.onnx").string(), "--external-data"};
    if (!head_start) args.insert(args.begin(), {"/usr/bin/env", "T2O_NO_HEAD_START=1"});
    for (const auto& spec : meta.at("cli_inputs")) {
      args.push_back("--input");
      args.push_back(spec.get<std::string>());
    }
    args.insert(args.end(), extra.begin(), extra.end());
    fs::create_directories(out_dir / name);
    return run(args);
  };
  for (const bool folded : {false, true}) {
    const std::vector<std::string> extra = folded ? std::vector<std::string>{} : std::vector<std::string>{"--no-constant-folding"};
    const std::string a = folded ? "folded_head" : "head", b = folded ? "folded_none" : "none";
    const RunResult with = export_to(a, extra, true), without = export_to(b, extra, false);
    ASSERT_EQ(with.exit_code, 0) << with.describe();
    ASSERT_EQ(without.exit_code, 0) << without.describe();
    // Kept only when the weights are the .pt's own: without folding, all of resnet18's records of
    // 1 MiB or more (fc and the last layers' convolutions: 41 of 44 MiB); folded, none.
    EXPECT_EQ(with.err.find("MiB copied ahead of the write") != std::string::npos, !folded) << with.describe();
    EXPECT_EQ(without.err.find("copied ahead of the write"), std::string::npos) << without.describe();
    EXPECT_EQ(list_dir(out_dir / a), (std::vector<std::string>{"m.onnx", "m.onnx.data"}));
    EXPECT_EQ(file_bytes(out_dir / a / "m.onnx"), file_bytes(out_dir / b / "m.onnx"));
    EXPECT_EQ(file_bytes(out_dir / a / "m.onnx.data"), file_bytes(out_dir / b / "m.onnx.data"));
  }
  const RunResult compared = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(),
                                  (out_dir / "head" / "m.onnx").string(), fx.string()});
  EXPECT_EQ(compared.exit_code, 0) << compared.describe();
  // An export that fails after the copy began: no output, no temporary file.
  const RunResult failed = export_to("failed", {"--input", "float32[1,3]"}, true);
  EXPECT_NE(failed.exit_code, 0) << failed.describe();
  EXPECT_TRUE(list_dir(out_dir / "failed").empty()) << failed.describe();
  if (!::testing::Test::HasFailure()) fs::remove_all(out_dir);
}

// torch.onnx's export_params=False (--no-weights): the file holds no weights; they are graph inputs
// named after the module's attributes, and the model fed the module's state_dict by name computes what
// PyTorch computed (tests/e2e/weights_as_inputs.py writes the feed; an unfed weight input fails it).
void export_without_weights(const std::string& model) {
  const fs::path fx = fixture(model);
  const auto meta = read_meta(fx);
  const fs::path out_dir = fresh_out_dir();
  const fs::path out = out_dir / (model + ".onnx");
  std::vector<std::string> args = {cli().string(), "export", (fx / "model.pt").string(), "-o", out.string(), "-q",
                                    "--no-weights"};
  for (const auto& spec : meta.at("cli_inputs")) {
    args.push_back("--input");
    args.push_back(spec.get<std::string>());
  }
  const RunResult exported = run(args);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  EXPECT_LT(fs::file_size(out), fs::file_size(fx / "model.pt") / 20) << "the weights should not be in the file";
  const fs::path feed = out_dir / "feed";
  const RunResult made = run({python(), (source_dir() / "tests" / "e2e" / "weights_as_inputs.py").string(),
                              (fx / "model.pt").string(), fx.string(), feed.string()});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  const RunResult compared = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(),
                                  feed.string()});
  ASSERT_EQ(compared.exit_code, 0) << compared.describe();
  const RunResult shown = run({cli().string(), "show", out.string()});
  ASSERT_EQ(shown.exit_code, 0) << shown.describe();
  // show lists the graph's inputs first, up to ") {", then the initializers.
  const std::string inputs = shown.out.substr(0, shown.out.find(") {"));
  EXPECT_NE(inputs.find("%fc.weight : "), std::string::npos) << "fc.weight should be a graph input\n" << shown.out;
  EXPECT_EQ(shown.out.find("  %fc.weight : ", inputs.size()), std::string::npos) << "and no initializer\n" << shown.out;
  if (!::testing::Test::HasFailure()) fs::remove_all(out_dir);
}

TEST(WeightsAsInputs, ResNet18Traced) { export_without_weights("resnet18"); }
TEST(WeightsAsInputs, ResNet18Scripted) { export_without_weights("resnet18_script"); }

// --keep-initializers-as-inputs: every initializer is also a graph input (IR < 4 style); ONNX Runtime
// still runs the model on the model's own inputs alone.
TEST(KeepInitializersAsInputs, ResNet18) {
  const fs::path fx = fixture("resnet18");
  const fs::path out_dir = fresh_out_dir();
  const fs::path out = out_dir / "resnet18.onnx";
  export_and_compare(fx, fx / "model.pt", out, 17, {"--keep-initializers-as-inputs"});
  const RunResult shown = run({cli().string(), "show", out.string()});
  ASSERT_EQ(shown.exit_code, 0) << shown.describe();
  // Every initializer is an input too: "initializers (N, … KiB; N also graph inputs)".
  const auto at = shown.out.find("initializers (");
  ASSERT_NE(at, std::string::npos) << shown.out;
  const std::string count = shown.out.substr(at + 14, shown.out.find(',', at) - at - 14);
  EXPECT_NE(shown.out.find("; " + count + " also graph inputs)", at), std::string::npos) << shown.out.substr(at, 200);
  if (!HasFailure()) fs::remove_all(out_dir);
}

}  // namespace
}  // namespace t2o_e2e
