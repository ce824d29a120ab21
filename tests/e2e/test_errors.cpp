// Bad inputs through the CLI: each must exit non-zero without crashing, print exactly one line on
// stderr starting with "torch2onnx: error: ", and leave no output (nor temp) file behind.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace t2o_e2e {
namespace {

const char* const kPrefix = "torch2onnx: error: ";

// Runs `torch2onnx export MODEL -o OUT ARGS...` and checks the error contract. Returns the error line.
std::string expect_export_error(const fs::path& model, const fs::path& out, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {cli().string(), "export", model.string(), "-o", out.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = run(argv);
  EXPECT_TRUE(r.started) << r.describe();
  EXPECT_EQ(r.signal, 0) << "killed by a signal\n" << r.describe();
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_LT(r.exit_code, 128) << "looks like a crash\n" << r.describe();
  const auto err_lines = lines(r.err);
  EXPECT_EQ(err_lines.size(), 1u) << "stderr must be exactly one line\n" << r.describe();
  EXPECT_TRUE(!r.err.empty() && r.err.back() == '\n') << "stderr must end with a newline\n" << r.describe();
  const std::string first = err_lines.empty() ? std::string() : err_lines.front();
  EXPECT_EQ(first.rfind(kPrefix, 0), 0u) << r.describe();
  EXPECT_GT(first.size(), std::string(kPrefix).size()) << "empty message\n" << r.describe();
  EXPECT_FALSE(fs::exists(out)) << "output file left behind: " << out << "\n" << r.describe();
  if (fs::is_directory(out.parent_path())) {
    EXPECT_EQ(list_dir(out.parent_path()), std::vector<std::string>{}) << "files left in the output directory\n"
                                                                       << r.describe();
  }
  return first;
}

std::vector<std::string> input_args(const std::vector<std::string>& specs) {
  std::vector<std::string> v;
  for (const auto& s : specs) {
    v.push_back("--input");
    v.push_back(s);
  }
  return v;
}

std::vector<std::string> cli_inputs(const fs::path& fixture_dir) {
  std::vector<std::string> v;
  const auto meta = read_meta(fixture_dir);  // (not in the range-for: .at() of a temporary would dangle)
  for (const auto& s : meta.at("cli_inputs")) v.push_back(s.get<std::string>());
  return v;
}

// Bad model files: the fixture's model.pt with the fixture's (valid) --input specs.
void bad_model_file(const std::string& fixture_name) {
  const fs::path fx = fixture(fixture_name);
  const fs::path out_dir = fresh_out_dir();
  expect_export_error(fx / "model.pt", out_dir / "out.onnx", input_args(cli_inputs(fx)));
}

// Every bundled pack loads: one duplicate registration refuses a whole pack (and with it every op
// it holds), which must fail here with the pack's reason, not as hundreds of unconvertible ops.
TEST(BundledPacks, EveryPackLoads) {
  const RunResult r = run({cli().string(), "plugins", "--strict"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out.find("refused:"), std::string::npos) << r.describe();
}

TEST(CliErrors, MissingModelFile) {
  const fs::path out_dir = fresh_out_dir();
  const std::string line =
      expect_export_error(out_dir / "does_not_exist.pt", out_dir / "out.onnx", input_args({"float32[1,3,32,32]"}));
  EXPECT_NE(line.find("does_not_exist.pt"), std::string::npos) << "the error should name the file: " << line;
}

TEST(CliErrors, TruncatedModel) { bad_model_file("truncated"); }
TEST(CliErrors, StateDictNotTorchScript) { bad_model_file("state_dict"); }
TEST(CliErrors, NotAZipFile) { bad_model_file("not_zip"); }

TEST(CliErrors, TooManyInputs) {
  const fs::path fx = fixture("tiny_cnn");
  const fs::path out_dir = fresh_out_dir();
  expect_export_error(fx / "model.pt", out_dir / "out.onnx", input_args({"float32[1,3,32,32]", "float32[1,3,32,32]"}));
}

TEST(CliErrors, NoInputs) {
  const fs::path fx = fixture("tiny_cnn");
  const fs::path out_dir = fresh_out_dir();
  expect_export_error(fx / "model.pt", out_dir / "out.onnx", {});
}

TEST(CliErrors, WrongInputDtype) {  // int64 where the first conv expects float
  const fs::path fx = fixture("tiny_cnn");
  const fs::path out_dir = fresh_out_dir();
  expect_export_error(fx / "model.pt", out_dir / "out.onnx", input_args({"int64[1,3,32,32]"}));
}

TEST(CliErrors, MalformedInputSpec) {
  const fs::path fx = fixture("tiny_cnn");
  const fs::path out_dir = fresh_out_dir();
  expect_export_error(fx / "model.pt", out_dir / "out.onnx", input_args({"float32[1,3,32"}));
}

TEST(CliErrors, OutputDirectoryMissing) {
  const fs::path fx = fixture("tiny_cnn");
  const fs::path out_dir = fresh_out_dir();
  const fs::path missing = out_dir / "no_such_dir";
  expect_export_error(fx / "model.pt", missing / "out.onnx", input_args(cli_inputs(fx)));
  EXPECT_FALSE(fs::exists(missing)) << "the CLI must not create the output directory";
}

TEST(CliErrors, UnsupportedOpIsNamed) {
  const fs::path fx = fixture("unsupported_op");
  const fs::path out_dir = fresh_out_dir();
  const std::string line = expect_export_error(fx / "model.pt", out_dir / "out.onnx", input_args(cli_inputs(fx)));
  const std::string op = read_meta(fx).at("expect_error").get<std::string>();
  EXPECT_NE(line.find(op), std::string::npos) << "the error should name the op '" << op << "': " << line;
}

TEST(CliErrors, OpsetOutOfRange) {
  const fs::path fx = fixture("tiny_cnn");
  const fs::path out_dir = fresh_out_dir();
  auto args = input_args(cli_inputs(fx));
  args.insert(args.begin(), {"--opset", "99"});
  const std::string line = expect_export_error(fx / "model.pt", out_dir / "out.onnx", args);
  EXPECT_NE(line.find("99"), std::string::npos) << "the error should name the opset: " << line;
}

}  // namespace
}  // namespace t2o_e2e
