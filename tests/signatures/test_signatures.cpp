// forward() signatures (tests/signatures/make_signature_fixtures.py): each case is exported with
// each of its runs' arguments, and the result run in ONNX Runtime and compared with PyTorch on every
// check (values, shape, dtype); a run that must fail exits with its code and one error line naming
// the argument, its TorchScript type and what was given, and writes no file; a model torch2onnx.save
// must refuse (an autograd.Function with a symbolic()) is refused by it in one line that says why.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>

namespace t2o_e2e {
namespace {

void export_runs(const std::string& name) {
  const fs::path root = work_dir() / "signatures";
  fs::create_directories(root);
  const RunResult made = run({python(), (source_dir() / "tests" / "signatures" / "make_signature_fixtures.py").string(),
                              root.string(), name});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  std::ifstream f(root / name / "export.json");
  ASSERT_TRUE(f) << "no export.json";
  const auto spec = nlohmann::json::parse(f);
  if (spec.contains("save_refusal")) {  // torch2onnx.save refused: one line, naming what and the way out
    const std::string message = spec.at("save_refusal").get<std::string>();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.rfind("torch2onnx.save: ", 0), 0u) << message;
    for (const auto& part : spec.at("save_error"))
      EXPECT_NE(message.find(part.get<std::string>()), std::string::npos)
          << "the refusal should say '" << part.get<std::string>() << "': " << message;
    return;
  }
  const fs::path out_dir = fresh_out_dir();
  int k = 0;
  for (const auto& r : spec.at("runs")) {
    const fs::path out = out_dir / ("run_" + std::to_string(k++) + ".onnx");
    std::vector<std::string> args = {cli().string(), "export", (root / name / "model.pt").string(), "-o", out.string()};
    static const std::string kFixture = "@fixture/";  // a file of the fixture (make_signature_fixtures.py)
    for (const auto& a : r.at("args")) {
      std::string arg = a.get<std::string>();
      if (arg.rfind(kFixture, 0) == 0) arg = (root / name / arg.substr(kFixture.size())).string();
      args.push_back(arg);
    }
    const RunResult exported = run(args);
    if (r.contains("error")) {
      EXPECT_EQ(exported.exit_code, r.at("exit").get<int>()) << exported.describe();
      const auto err = lines(exported.err);
      ASSERT_EQ(err.size(), 1u) << "one error line expected\n" << exported.describe();
      EXPECT_EQ(err[0].rfind("torch2onnx: error: ", 0), 0u) << exported.describe();
      for (const auto& part : r.at("error"))
        EXPECT_NE(err[0].find(part.get<std::string>()), std::string::npos)
            << "the error should say '" << part.get<std::string>() << "'\n" << exported.describe();
      EXPECT_FALSE(fs::exists(out)) << "no file on error";
      continue;
    }
    ASSERT_EQ(exported.exit_code, 0) << exported.describe();
    if (!r.value("shows", nlohmann::json::array()).empty() || !r.value("hides", nlohmann::json::array()).empty()) {
      const RunResult shown = run({cli().string(), "show", out.string()});
      ASSERT_EQ(shown.exit_code, 0) << shown.describe();
      for (const auto& text : r.at("shows"))
        EXPECT_NE(shown.out.find(text.get<std::string>()), std::string::npos)
            << "show should print '" << text.get<std::string>() << "' for " << exported.command << "\n" << shown.out;
      for (const auto& text : r.at("hides"))
        EXPECT_EQ(shown.out.find(text.get<std::string>()), std::string::npos)
            << "show should not print '" << text.get<std::string>() << "' for " << exported.command << "\n" << shown.out;
    }
    for (const auto& check : r.at("checks")) {
      const RunResult cmp = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(),
                                 (root / name / check.get<std::string>()).string()});
      EXPECT_EQ(cmp.exit_code, 0) << check << " with " << exported.command << ":\n" << cmp.describe();
    }
  }
}

class Signature : public ::testing::TestWithParam<std::string> {};

TEST_P(Signature, ExportsAndMatchesTorch) { export_runs(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Signatures, Signature,
                         ::testing::Values("lstm_hx", "lstm_hx_script", "tuple_images", "tuple_images_script",
                                           "nested_tuple", "nested_tuple_script", "lstm_dynamic", "dict_input",
                                           "dict_input_script", "list_input_script", "primitives_script", "primitives_first_script",
                                           "optional_in_tuple_script", "containers_script", "example_inputs_script",
                                           "bad_inputs", "saved_signature", "overloaded_forward_script",
                                           "saved_training", "saved_no_folding", "saved_numbers",
                                           "saved_short_names", "saved_no_tensor", "saved_autograd_function",
                                           "saved_symbolic_function", "saved_set_attr_script",
                                           "saved_set_attr_tuple_script", "saved_set_attr_loop_script",
                                           "saved_set_attr_modules"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// `check` binds the same specs: the LSTM with its state tuple converts fully; a tensor for the tuple
// is the same one-line error, exit 2.
TEST(SignatureCheck, UnderstandsNestedSpecs) {
  const fs::path root = work_dir() / "signatures";
  fs::create_directories(root);
  const RunResult made = run({python(), (source_dir() / "tests" / "signatures" / "make_signature_fixtures.py").string(),
                              root.string(), "check_lstm"});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  const std::string model = (root / "check_lstm" / "model.pt").string();
  const RunResult ok = run({cli().string(), "check", model, "--input", "float32[5,3,10]", "--input",
                            "(float32[1,3,20],float32[1,3,20])"});
  EXPECT_EQ(ok.exit_code, 0) << ok.describe();
  const RunResult bad = run({cli().string(), "check", model, "--input", "float32[5,3,10]", "--input", "float32[1,3,20]"});
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
  EXPECT_NE(bad.err.find("forward() argument 'hx' of type Tuple[Tensor, Tensor]: a tuple of 2 expected"),
            std::string::npos)
      << bad.describe();
}

}  // namespace
}  // namespace t2o_e2e
