// torch2onnx verify (ONNX Runtime against libtorch), --find-mismatch on a planted wrong symbolic,
// --repro replayed in ONNX Runtime, show / export --print against an expected text, bad input.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>
#include <iterator>
#include <unistd.h>

namespace t2o_e2e {
namespace {

// Generated once per build tree: into a private directory, then renamed into place (tests run in
// parallel processes; the first rename wins, the others use its files).
fs::path verify_fixtures() {
  static const fs::path dir = [] {
    const fs::path d = work_dir() / "verify_fixtures";
    if (fs::exists(d / "small_transformer.pt")) return d;
    const fs::path mine = work_dir() / ("verify_fixtures.tmp" + std::to_string(getpid()));
    fs::remove_all(mine);
    const RunResult made =
        run({python(), (source_dir() / "tests" / "verify" / "make_verify_fixtures.py").string(), mine.string()});
    EXPECT_EQ(made.exit_code, 0) << made.describe();
    std::error_code ec;
    fs::rename(mine, d, ec);
    if (ec) fs::remove_all(mine);
    return d;
  }();
  return dir;
}

RunResult torch2onnx(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {cli().string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return run(args);
}

std::string cnn() { return (verify_fixtures() / "small_cnn.pt").string(); }
std::string transformer() { return (verify_fixtures() / "small_transformer.pt").string(); }
std::string wrong_gelu_pack() { return (plugin_root() / "wrong_gelu").string(); }

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Replays a repro directory in ONNX Runtime: {"outputs": [{"name", "max_abs_error", "allowed"}]}.
nlohmann::json replay(const fs::path& dir) {
  const RunResult r = run({node(), (source_dir() / "tests" / "verify" / "replay.js").string(),
                           (source_dir() / "tests" / "ort" / "node_modules").string(), dir.string()});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

void expect_one_error_line(const RunResult& r, int code, const std::string& needle) {
  EXPECT_EQ(r.exit_code, code) << r.describe();
  auto err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.describe();
  EXPECT_EQ(err[0].rfind("torch2onnx: error: ", 0), 0u) << r.describe();
  EXPECT_NE(err[0].find(needle), std::string::npos) << needle << "\n" << r.describe();
}

TEST(Verify, SmallCnnMatchesOnSeveralRuns) {
  const RunResult r = torch2onnx({"verify", cnn(), "--input", "float32[1,3,16,16]", "--runs", "2", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("run 2/2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output_0 float32[1,10]: max abs err"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("all outputs match"), std::string::npos) << r.out;
}

TEST(Verify, SmallTransformerMatchesAtTheOtherSizeOfItsDynamicAxes) {
  const RunResult r = torch2onnx({"verify", transformer(), "--input", "int64[2,8]", "--input-range", "0:50",
                                  "--dynamic-axes", "ids=0,1", "--json", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report.at("schema_version"), 1);
  EXPECT_EQ(report.at("match"), true);
  ASSERT_EQ(report.at("runs").size(), 2u) << r.out;  // the --input size and each dynamic axis one larger
  EXPECT_EQ(report.at("runs")[0].at("outputs")[0].at("shape"), nlohmann::json({2, 8, 50}));
  EXPECT_EQ(report.at("runs")[1].at("outputs")[0].at("shape"), nlohmann::json({3, 9, 50}));
}

TEST(Verify, PlantedWrongGeluIsFoundAtItsNodeAndReproduced) {
  const fs::path repro = fresh_out_dir() / "repro";
  const RunResult r =
      torch2onnx({"verify", transformer(), "--input", "int64[2,8]", "--input-range", "0:50", "--plugin-path",
                  wrong_gelu_pack(), "--find-mismatch", "--repro", repro.string(), "--json", "-q"});
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report.at("match"), false);
  const auto& first = report.at("first_mismatch");
  ASSERT_EQ(first.at("found"), true) << r.out;
  EXPECT_EQ(first.at("op"), "aten::gelu");
  EXPECT_EQ(first.at("pack"), "wrong_gelu");
  // The last layer's MLP: the only exact gelu (layers 0-2 ask for the tanh form, which the pack gets right).
  const std::string location = first.at("location");
  EXPECT_EQ(location.rfind("3.mlp (Mlp), ", 0), 0u) << location;  // traced: a ModuleList index has no scope of its own
  // The traced Mlp's code file (its class is mangled: each layer's gelu differs) at the gelu's line.
  EXPECT_NE(location.find(", code/__torch__/"), std::string::npos) << location;
  EXPECT_EQ(location.substr(location.size() - 6), ".py:13") << location;
  ASSERT_EQ(first.at("inputs").size(), 1u);
  EXPECT_EQ(first.at("inputs")[0].at("match"), true) << r.out;
  ASSERT_EQ(first.at("outputs").size(), 1u);
  EXPECT_EQ(first.at("outputs")[0].at("match"), false) << r.out;
  EXPECT_GT(first.at("outputs")[0].at("max_abs_error").get<double>(), 1e-5) << r.out;

  // The repro is the gelu alone: one input, one output, libtorch's values; in ONNX Runtime it shows
  // the wrong symbolic's error (tanh vs erf: small, but beyond tolerance).
  ASSERT_EQ(report.at("repro").at("subgraph"), true) << r.out;
  EXPECT_TRUE(fs::exists(repro / "test_data_set_0" / "input_0.pb"));
  EXPECT_FALSE(fs::exists(repro / "test_data_set_0" / "input_1.pb"));
  EXPECT_TRUE(fs::exists(repro / "test_data_set_0" / "output_0.pb"));
  const RunResult shown = torch2onnx({"show", (repro / "model.onnx").string()});
  ASSERT_EQ(shown.exit_code, 0) << shown.describe();
  EXPECT_NE(shown.out.find("onnx::Tanh"), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("onnx::MatMul"), std::string::npos) << shown.out;
  const auto replayed = replay(repro);
  ASSERT_EQ(replayed.at("outputs").size(), 1u);
  const double err = replayed.at("outputs")[0].at("max_abs_error");
  EXPECT_GT(err, 1e-5);
  EXPECT_LT(err, 1e-2);

  // Text form: the node, its location, pack and the input/output errors.
  const RunResult text = torch2onnx({"verify", transformer(), "--input", "int64[2,8]", "--input-range", "0:50",
                                     "--plugin-path", wrong_gelu_pack(), "--find-mismatch", "-q"});
  ASSERT_EQ(text.exit_code, 1) << text.describe();
  for (const char* s : {"MISMATCH", "first mismatch: aten::gelu at 3.mlp (Mlp)", "converted by pack wrong_gelu",
                        "(within tolerance)"})
    EXPECT_NE(text.out.find(s), std::string::npos) << s << "\n" << text.out;
}

TEST(Verify, ReproOfAMatchingModelReplaysToTheRecordedOutputs) {
  const fs::path repro = fresh_out_dir() / "repro";
  const RunResult r =
      torch2onnx({"verify", cnn(), "--input", "float32[1,3,16,16]", "--seed", "3", "--repro", repro.string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("(the whole model)"), std::string::npos) << r.out;
  const auto replayed = replay(repro);
  ASSERT_EQ(replayed.at("outputs").size(), 1u);
  EXPECT_LE(replayed.at("outputs")[0].at("max_abs_error").get<double>(), 1e-4) << replayed.dump();
  // The same inputs through --inputs (TensorProto files) match again.
  const RunResult again = torch2onnx({"verify", cnn(), "--inputs", (repro / "test_data_set_0").string(), "-q"});
  EXPECT_EQ(again.exit_code, 0) << again.describe();
}

TEST(Verify, NpyInputs) {
  const RunResult r = torch2onnx({"verify", cnn(), "--inputs", (verify_fixtures() / "npy_inputs").string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("inputs from"), std::string::npos) << r.out;
}

TEST(Verify, ExportPrintOfASmallCnnIsTheExpectedText) {
  const fs::path out = fresh_out_dir() / "cnn.onnx";
  const RunResult r = torch2onnx({"export", cnn(), "-o", out.string(), "--input", "float32[1,3,16,16]", "--print", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string expected = read_text(source_dir() / "tests" / "verify" / "expected" / "small_cnn_print.txt");
  EXPECT_EQ(r.out, expected);
  // show prints the same for the written file.
  const RunResult shown = torch2onnx({"show", out.string()});
  ASSERT_EQ(shown.exit_code, 0) << shown.describe();
  EXPECT_EQ(shown.out, expected);
}

TEST(Verify, BadInputIsOneLine) {
  expect_one_error_line(torch2onnx({"verify", cnn(), "--input", "float32[1,3,16,16]", "--ort-dir", "/nonexistent/ort"}),
                        2, "no onnxruntime-node in /nonexistent/ort");
  expect_one_error_line(torch2onnx({"verify", cnn(), "--input", "float32[1,3,16,16]", "--inputs",
                                    (verify_fixtures() / "wrong_shape").string(), "-q"}),
                        2, "wants shape [1,3,16,16]");
  expect_one_error_line(torch2onnx({"verify", cnn(), "--input", "int64[1,3,16,16]", "--inputs",
                                    (verify_fixtures() / "npy_inputs").string(), "-q"}),
                        2, "wants dtype int64");
  expect_one_error_line(torch2onnx({"verify", cnn(), "--input", "float32[1,3,16,16]", "--onnx",
                                    (verify_fixtures() / "not_onnx.onnx").string(), "-q"}),
                        2, "not an ONNX model");
  expect_one_error_line(torch2onnx({"show", (verify_fixtures() / "not_onnx.onnx").string()}), 2, "not an ONNX model");
  expect_one_error_line(torch2onnx({"verify", cnn(), "--input", "float32[1,3,16,16]", "--rtol", "x"}), 2,
                        "--rtol expects a number");
}

TEST(Verify, AModelOnnxRuntimeRejectsIsOneLine) {
  // A valid protobuf whose first Relu is renamed to an op no runtime knows.
  const fs::path dir = fresh_out_dir(), good = dir / "cnn.onnx", bad = dir / "bad.onnx";
  const RunResult exported = torch2onnx({"export", cnn(), "-o", good.string(), "--input", "float32[1,3,16,16]", "-q"});
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  std::string bytes = read_text(good);
  const std::string relu("\x22\x04Relu", 6);
  const auto at = bytes.find(relu);
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, relu.size(), std::string("\x22\x04Relx", 6));
  std::ofstream(bad, std::ios::binary) << bytes;
  expect_one_error_line(torch2onnx({"verify", cnn(), "--input", "float32[1,3,16,16]", "--onnx", bad.string(), "-q"}), 1,
                        "ONNX Runtime cannot load");
}

}  // namespace
}  // namespace t2o_e2e
