// --load-library and the default kernel libraries (torchvision's, where Debian installs it).
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>
#include <glob.h>

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

std::string torchvision_library() {
  glob_t found{};
  std::string path;
  if (glob("/usr/lib/python3/dist-packages/torchvision/_C*.so", 0, nullptr, &found) == 0 && found.gl_pathc)
    path = found.gl_pathv[0];
  globfree(&found);
  return path;
}

RunResult check(const fs::path& model, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {cli().string(), "check", model.string(), "--input", "float32[8,4]", "--input",
                                   "float32[8]", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run(args);
}

// The only line on stderr is one error line naming the library.
void expect_one_error_line(const RunResult& r, const std::string& library, const std::string& says) {
  EXPECT_FALSE(r.crashed()) << r.describe();
  EXPECT_NE(r.exit_code, 0) << r.describe();
  const auto err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.describe();
  EXPECT_EQ(err[0].rfind("torch2onnx: error: kernel library " + library + ": ", 0), 0u) << r.describe();
  EXPECT_NE(err[0].find(says), std::string::npos) << r.describe();
}

TEST(KernelLibraries, TorchvisionKernelsAreLoadedAutomatically) {
  if (torchvision_library().empty()) GTEST_SKIP() << "python3-torchvision is not installed";
  const fs::path model = detection_fixture("nms_only") / "model.pt";
  const RunResult with = check(model, {});
  ASSERT_FALSE(with.crashed()) << with.describe();
  EXPECT_EQ(nlohmann::json::parse(with.out).at("loaded"), true) << with.describe();
  const RunResult explicit_path = check(model, {"--no-default-libraries", "--load-library", torchvision_library()});
  ASSERT_FALSE(explicit_path.crashed()) << explicit_path.describe();
  EXPECT_EQ(nlohmann::json::parse(explicit_path.out).at("loaded"), true) << explicit_path.describe();
}

// Without torchvision's kernels the model cannot load: export names the op and both remedies.
TEST(KernelLibraries, WithoutTheKernelsExportSaysWhatIsMissing) {
  const fs::path model = detection_fixture("nms_only") / "model.pt";
  const fs::path out = fresh_out_dir() / "model.onnx";
  const RunResult r = run({cli().string(), "export", model.string(), "-o", out.string(), "--input", "float32[8,4]",
                           "--input", "float32[8]", "--no-default-libraries"});
  EXPECT_FALSE(r.crashed()) << r.describe();
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("torchvision::nms"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("--load-library"), std::string::npos) << r.describe();
  EXPECT_FALSE(fs::exists(out));
}

TEST(KernelLibraries, MissingFileIsOneLine) {
  const fs::path model = detection_fixture("nms_only") / "model.pt";
  const std::string missing = (fresh_out_dir() / "no_such_library.so").string();
  expect_one_error_line(check(model, {"--load-library", missing}), missing, "no such file");
}

TEST(KernelLibraries, NotALibraryIsOneLine) {
  const fs::path model = detection_fixture("nms_only") / "model.pt";
  expect_one_error_line(check(model, {"--load-library", model.string()}), model.string(), "not a shared library");
  const fs::path dir = fresh_out_dir();
  expect_one_error_line(check(model, {"--load-library", dir.string()}), dir.string(), "is a directory");
}

TEST(KernelLibraries, ClashingRegistrationsAreOneLine) {
  const std::string original = torchvision_library();
  if (original.empty()) GTEST_SKIP() << "python3-torchvision is not installed";
  // A second copy of torchvision's kernels defines the same ops again.
  const fs::path dir = fresh_out_dir();
  const fs::path copy = dir / "torchvision_copy.so";
  fs::copy_file(original, copy);
  const fs::path model = detection_fixture("nms_only") / "model.pt";
  expect_one_error_line(check(model, {"--load-library", copy.string()}), copy.string(),
                        "clash with ops already registered: Tried to register an operator (torchvision::");
  // export says the same, and writes nothing.
  const fs::path out = dir / "model.onnx";
  const RunResult exported = run({cli().string(), "export", model.string(), "-o", out.string(), "--input",
                                  "float32[8,4]", "--input", "float32[8]", "--load-library", copy.string()});
  expect_one_error_line(exported, copy.string(), "clash with ops already registered");
  EXPECT_FALSE(fs::exists(out));
}

// deform_conv2d's ONNX form (DeformConv) is new in opset 19: below, export names the opset it needs.
TEST(TorchvisionPack, DeformConv2dNeedsOpset19) {
  const fs::path dir = detection_fixture("deform_conv2d");
  std::ifstream f(dir / "export.json");
  const auto spec = nlohmann::json::parse(f);
  const fs::path out = fresh_out_dir() / "deform.onnx";
  std::vector<std::string> args = {cli().string(), "export", (dir / "model.pt").string(), "-o", out.string(),
                                   "--opset", "17"};
  for (const auto& a : spec.at("cli_args")) args.push_back(a.get<std::string>());
  const RunResult r = run(args);
  EXPECT_FALSE(r.crashed()) << r.describe();
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("torchvision::deform_conv2d"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("needs --opset 19"), std::string::npos) << r.describe();
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace t2o_e2e
