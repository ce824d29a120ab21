// `torch2onnx check` lists every unconvertible op at once; the fallback export modes emit them.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>
#include <iterator>

namespace t2o_e2e {
namespace {

fs::path check_fixtures() {
  static const fs::path dir = [] {
    const fs::path d = work_dir() / "check";
    const RunResult made =
        run({python(), (source_dir() / "tests" / "check" / "make_check_fixtures.py").string(), d.string()});
    EXPECT_EQ(made.exit_code, 0) << made.describe();
    return d;
  }();
  return dir;
}

RunResult check(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {cli().string(), "check"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run(args);
}

const nlohmann::json* find_op(const nlohmann::json& report, const std::string& op) {
  for (const auto& o : report.at("ops"))
    if (o.at("op") == op) return &o;
  return nullptr;
}

TEST(Check, ListsEveryUnconvertibleOpWithCountsAndReasons) {
  const fs::path model = check_fixtures() / "several_ops.pt";
  const RunResult r = check({model.string(), "--input", "float32[1,3,7,7]", "--opset", "9", "--json"});
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report.at("schema_version"), 1);
  EXPECT_EQ(report.at("convertible"), false);
  EXPECT_EQ(report.at("symbolics_run"), true);
  ASSERT_EQ(report.at("ops").size(), 4u) << r.out;

  const auto* bessel = find_op(report, "aten::special_bessel_j0");
  ASSERT_NE(bessel, nullptr) << r.out;
  EXPECT_EQ(bessel->at("count"), 2);
  EXPECT_EQ(bessel->at("reason"), "no_symbolic");
  EXPECT_EQ(bessel->at("locations").size(), 2u);
  EXPECT_NE(bessel->at("schema").get<std::string>().find("aten::special_bessel_j0("), std::string::npos);

  const auto* airy = find_op(report, "aten::special_airy_ai");
  ASSERT_NE(airy, nullptr) << r.out;
  EXPECT_EQ(airy->at("count"), 1);

  const auto* round = find_op(report, "aten::round");
  ASSERT_NE(round, nullptr) << r.out;
  EXPECT_EQ(round->at("reason"), "needs_opset");
  EXPECT_EQ(round->at("min_opset"), 11);

  const auto* norm = find_op(report, "aten::linalg_matrix_norm");
  ASSERT_NE(norm, nullptr) << r.out;
  EXPECT_EQ(norm->at("reason"), "symbolic_refused");
  EXPECT_NE(norm->at("message").get<std::string>().find("SVD"), std::string::npos) << r.out;
  // Sorted by count.
  EXPECT_EQ(report.at("ops")[0].at("op"), "aten::special_bessel_j0");
  EXPECT_EQ(report.at("unconvertible_nodes"), 5);
}

TEST(Check, HumanTableHasEveryOpAndASummary) {
  const fs::path model = check_fixtures() / "several_ops.pt";
  const RunResult r = check({model.string(), "--input", "float32[1,3,7,7]", "--opset", "9"});
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  for (const char* s : {"aten::special_bessel_j0", "aten::special_airy_ai", "aten::round", "needs --opset 11",
                        "aten::linalg_matrix_norm", "refused:", "4 op kind(s), 5 of"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.describe();
}

TEST(Check, AtTheOpsetItNeedsRoundConverts) {
  const RunResult r = check({(check_fixtures() / "several_ops.pt").string(), "--input", "float32[1,3,7,7]",
                             "--opset", "11", "--json"});
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(find_op(report, "aten::round"), nullptr) << r.out;
  EXPECT_EQ(report.at("ops").size(), 3u);
}

TEST(Check, WithoutInputsChecksSymbolicsOnly) {
  const RunResult r = check({(check_fixtures() / "several_ops.pt").string(), "--opset", "9", "--json"});
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report.at("symbolics_run"), false);
  EXPECT_EQ(report.at("ops").size(), 3u) << r.out;  // the refusal needs the symbolic to run
}

TEST(Check, CustomOpsNoPackDeclaresAreAllListed) {
  const RunResult r = check({(check_fixtures() / "custom_ops.pt").string(), "--json"});
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report.at("loaded"), false);
  const auto* a = find_op(report, "t2ocheck::op_a");
  const auto* b = find_op(report, "t2ocheck::op_b");
  ASSERT_NE(a, nullptr) << r.out;
  ASSERT_NE(b, nullptr) << r.out;
  EXPECT_EQ(a->at("count"), 2);
  EXPECT_EQ(b->at("count"), 1);
  EXPECT_EQ(a->at("reason"), "unknown_custom_op");
  EXPECT_NE(a->at("locations")[0].get<std::string>().find("code/"), std::string::npos);
}

TEST(Check, ExportNamesEveryUnknownCustomOp) {
  const fs::path out = fresh_out_dir() / "c.onnx";
  const RunResult r = run({cli().string(), "export", (check_fixtures() / "custom_ops.pt").string(), "-o",
                           out.string(), "--input", "float32[4]"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.describe();
  EXPECT_NE(r.err.find("t2ocheck::op_a (2 calls"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("t2ocheck::op_b (1 call"), std::string::npos) << r.describe();
  EXPECT_FALSE(fs::exists(out));
}

TEST(Check, ConvertibleModelExitsZero) {
  const fs::path fx = fixture("tiny_cnn");
  const auto meta = read_meta(fx);
  const RunResult r = check({(fx / "model.pt").string(), "--input", meta.at("cli_inputs")[0].get<std::string>()});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("nodes convert at opset 17"), std::string::npos) << r.describe();
}

TEST(Check, DataDependentIfConvertsWhileFixedFactsFold) {
  const RunResult r = check({(check_fixtures() / "data_if.pt").string(), "--input", "float32[2,3]", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();  // x.sum() > 0 stays an ONNX If (ABI 1.1)
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_TRUE(report.at("convertible").get<bool>()) << r.out;
  EXPECT_EQ(find_op(report, "prim::If"), nullptr) << r.out;
}

// check looks inside blocks: an op no pack converts, in a loop body inside a branch, is listed with
// its location like any other, and its placeholders let the rest of the body be checked.
TEST(Check, UnconvertibleOpInsideALoopBodyIsListed) {
  const RunResult r = check({(check_fixtures() / "loop_body.pt").string(), "--input", "float32[3,4]", "--json"});
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  const auto report = nlohmann::json::parse(r.out);
  const auto* op = find_op(report, "aten::special_bessel_j0");
  ASSERT_NE(op, nullptr) << r.out;
  EXPECT_EQ(op->at("reason"), "no_symbolic") << r.out;
  EXPECT_EQ(op->at("count"), 1) << r.out;
  ASSERT_FALSE(op->at("locations").empty()) << r.out;
  EXPECT_NE(op->at("locations")[0].get<std::string>().find(".py:"), std::string::npos) << r.out;
  EXPECT_EQ(report.at("ops").size(), 1u) << r.out;  // nothing else: prim::If and prim::Loop convert
}

TEST(Check, MissingTrailingArgumentsTakeTheirDefaults) {
  const RunResult r = check({(check_fixtures() / "defaults.pt").string(), "--input", "float32[2,3]"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  // Given, the Optional argument is a graph input and its None branch folds away.
  const RunResult both = check({(check_fixtures() / "defaults.pt").string(), "--input", "float32[2,3]",
                                "--input", "float32[2,3]"});
  EXPECT_EQ(both.exit_code, 0) << both.describe();
}

TEST(Check, InputNoneGivesAnOptionalArgumentNone) {
  const fs::path model = check_fixtures() / "defaults.pt";
  const RunResult r = check({model.string(), "--input", "float32[2,3]", "--input", "none"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  const RunResult bad = check({model.string(), "--input", "none", "--input", "float32[2,3]"});
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
  EXPECT_NE(bad.err.find("--input none for forward() argument 'x' of type Tensor: only an Optional argument"),
            std::string::npos)
      << bad.describe();
}

TEST(Check, MissingArgumentWithoutDefaultIsRefused) {
  const RunResult r = check({(check_fixtures() / "no_default.pt").string(), "--input", "float32[2,3]"});
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("but 1 --input given (without a default: 'y')"), std::string::npos) << r.describe();
}

TEST(Check, UnreadableModelOrBadUsageExitsTwo) {
  EXPECT_EQ(check({(work_dir() / "no_such_model.pt").string()}).exit_code, 2);
  EXPECT_EQ(check({}).exit_code, 2);
  EXPECT_EQ(check({(check_fixtures() / "several_ops.pt").string(), "--bogus"}).exit_code, 2);
}

// check is a dry run of export's command line: the same words (export's -o and options included) go
// through both, and they agree on whether the model converts.
TEST(Check, SameCommandLineAsExportAgreesOnConvertibility) {
  const fs::path fx = fixture("tiny_cnn");
  const std::string model = (fx / "model.pt").string();
  const std::string input = read_meta(fx).at("cli_inputs")[0].get<std::string>();
  const fs::path out = fresh_out_dir() / "parity.onnx";
  struct Line {
    std::vector<std::string> words;
    bool converts;
  };
  const std::vector<Line> lines_to_try = {
      {{model, "-o", out.string(), "--input", input, "--opset", "13", "--input-names", "image",
        "--output-names", "logits", "--dynamic-axes", "image=0:batch", "--dynamic-axes", "logits=0:batch",
        "--enable-pack", "com.microsoft", "--custom-opset", "com.microsoft=1", "--external-data", "-q"},
       true},
      // A dynamic axis naming no input or output: ignored with a warning (as torch.onnx), by both.
      {{model, "-o", out.string(), "--input", input, "--dynamic-axes", "no_such_input=0"}, true},
      // An op that needs a later opset.
      {{(check_fixtures() / "several_ops.pt").string(), "-o", out.string(), "--input", "float32[1,3,7,7]",
        "--opset", "9"},
       false},
  };
  for (const auto& line : lines_to_try) {
    std::vector<std::string> exp = {cli().string(), "export"};
    exp.insert(exp.end(), line.words.begin(), line.words.end());
    fs::remove(out);
    const RunResult e = run(exp);
    const RunResult c = check(line.words);
    EXPECT_EQ(e.exit_code == 0, line.converts) << e.describe();
    EXPECT_EQ(c.exit_code == 0, line.converts) << c.describe();
    EXPECT_NE(c.exit_code, 3) << c.describe();
    EXPECT_LT(c.exit_code, 128) << c.describe();
  }
  // check writes nothing, even given -o.
  fs::remove(out);
  const RunResult c = check(lines_to_try[0].words);
  EXPECT_EQ(c.exit_code, 0) << c.describe();
  EXPECT_FALSE(fs::exists(out));
}

TEST(Check, HelpListsExportsOptions) {
  const RunResult c = check({"--help"});
  const RunResult e = run({cli().string(), "export", "--help"});
  ASSERT_EQ(c.exit_code, 0);
  ASSERT_EQ(e.exit_code, 0);
  for (const char* option : {"--dynamic-axes", "--enable-pack", "--custom-opset", "--input-names",
                             "--operator-export-type", "--load-library", "--plugin-path", "--dynamic-input"}) {
    EXPECT_NE(c.out.find(option), std::string::npos) << option;
    EXPECT_NE(e.out.find(option), std::string::npos) << option;
  }
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class Fallback : public ::testing::TestWithParam<std::string> {};

TEST_P(Fallback, ExportsUnconvertibleOpsAsNodesOfTheirDomain) {
  const std::string mode = GetParam();
  const fs::path out = fresh_out_dir() / "fallback.onnx";
  // At opset 11 the refused nuclear norm also falls back; everything else converts.
  const RunResult r = run({cli().string(), "export", (check_fixtures() / "several_ops.pt").string(), "-o",
                           out.string(), "--input", "float32[1,3,7,7]", "--opset", "11",
                           "--operator-export-type", mode});
  ASSERT_EQ(r.exit_code, 0) << r.describe();  // the ONNX checker passed inside the CLI
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.describe();
  const std::string bytes = read_all(out);
  if (mode == "aten-fallback") {
    EXPECT_NE(bytes.find("org.pytorch.aten"), std::string::npos);
    EXPECT_NE(bytes.find("ATen"), std::string::npos);
    EXPECT_NE(bytes.find("special_bessel_j0"), std::string::npos);  // the `operator` attribute
    EXPECT_NE(bytes.find("overload_name"), std::string::npos);
  } else {
    EXPECT_NE(bytes.find("special_bessel_j0"), std::string::npos);  // op_type in domain "aten"
    EXPECT_EQ(bytes.find("org.pytorch.aten"), std::string::npos);
  }
  EXPECT_NE(bytes.find("linalg_matrix_norm"), std::string::npos);
}

// --operator-export-type aten (torch.onnx's ONNX_ATEN): every aten:: op is an ATen node, those with a
// symbolic (the convolution, round, add) too, not only the unconvertible ones; the checker passed.
TEST(OperatorExportTypeAten, EveryAtenOpIsAnATenNode) {
  const fs::path out = fresh_out_dir() / "aten.onnx";
  const RunResult r = run({cli().string(), "export", (check_fixtures() / "several_ops.pt").string(), "-o",
                           out.string(), "--input", "float32[1,3,7,7]", "--opset", "11",
                           "--operator-export-type", "aten", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const RunResult shown = run({cli().string(), "show", out.string()});
  ASSERT_EQ(shown.exit_code, 0) << shown.describe();
  const std::string body = shown.out.substr(0, shown.out.find("  return ("));
  size_t nodes = 0, aten = 0;
  for (const auto& line : lines(body)) {
    if (line.rfind("  %", 0) != 0) continue;
    ++nodes;
    aten += line.find(" = org.pytorch.aten::ATen[operator=") != std::string::npos;
  }
  EXPECT_GT(nodes, 0u) << shown.out;
  EXPECT_EQ(aten, nodes) << "every node should be an ATen node\n" << shown.out;
  for (const char* op : {"_convolution", "special_bessel_j0", "special_airy_ai", "round", "add", "linalg_matrix_norm"})
    EXPECT_NE(body.find(std::string("operator=\"") + op + "\""), std::string::npos) << op << "\n" << shown.out;
}

INSTANTIATE_TEST_SUITE_P(Modes, Fallback, ::testing::Values("aten-fallback", "fallthrough"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == "aten-fallback" ? std::string("AtenFallback") : std::string("Fallthrough");
                         });

}  // namespace
}  // namespace t2o_e2e
