// --training eval|preserve|train (torch.onnx's training=TrainingMode.*), fixtures from
// tests/training/make_training_fixtures.py: each export run in ONNX Runtime and compared with the
// PyTorch model in the mode the export should follow (BatchNorm with the batch's statistics in
// training, also on fresh models far from their running statistics), at each opset where the form
// changes (Dropout-12's training_mode input); Dropout with p > 0 by its
// statistics (dropout_stats.js); the forms themselves read back with `torch2onnx show`; bad input and
// the warnings torch.onnx also gives.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>

namespace t2o_e2e {
namespace {

fs::path fixtures_root() {
  const fs::path root = work_dir() / "training" / "fixtures";
  fs::create_directories(root.parent_path());
  const RunResult made =
      run({python(), (source_dir() / "tests" / "training" / "make_training_fixtures.py").string(), root.string()});
  EXPECT_EQ(made.exit_code, 0) << made.describe();
  return root;
}

nlohmann::json read_case(const fs::path& root, const std::string& name) {
  std::ifstream f(root / name / "case.json");
  EXPECT_TRUE(f) << "no case.json for " << name;
  return f ? nlohmann::json::parse(f) : nlohmann::json();
}

// `torch2onnx export` of case NAME at OPSET with EXTRA arguments (--training ...), into OUT.
RunResult export_case(const fs::path& root, const std::string& name, const fs::path& out, int opset,
                      const std::vector<std::string>& extra) {
  std::vector<std::string> args = {cli().string(), "export", (root / name / "model.pt").string(), "-o", out.string(),
                                   "--opset", std::to_string(opset)};
  const nlohmann::json spec = read_case(root, name);
  for (const auto& a : spec.at("cli_args")) args.push_back(a.get<std::string>());
  args.insert(args.end(), extra.begin(), extra.end());
  return run(args);
}

std::string shown(const fs::path& onnx) {
  const RunResult r = run({cli().string(), "show", onnx.string()});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  return r.out;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

struct ModeCase {
  std::string model;    // a make_training_fixtures.py case
  std::string mode;     // --training's value ("" = not given)
  std::string expect;   // the fixture directory of PyTorch's outputs: "train" or "eval"
  std::vector<int> opsets;
};

std::ostream& operator<<(std::ostream& os, const ModeCase& c) {
  return os << c.model << " --training " << c.mode << " (PyTorch in " << c.expect << " mode)";
}

class TrainingMode : public ::testing::TestWithParam<ModeCase> {};

// Exported in the mode, the model computes what PyTorch computes in that mode.
TEST_P(TrainingMode, MatchesTorch) {
  const ModeCase& c = GetParam();
  const fs::path root = fixtures_root();
  const fs::path out_dir = fresh_out_dir();
  for (int opset : c.opsets) {
    const fs::path out = out_dir / (c.model + "_" + std::to_string(opset) + ".onnx");
    std::vector<std::string> extra = {"-q"};
    if (!c.mode.empty()) extra.insert(extra.end(), {"--training", c.mode});
    const RunResult exported = export_case(root, c.model, out, opset, extra);
    ASSERT_EQ(exported.exit_code, 0) << "opset " << opset << "\n" << exported.describe();
    const RunResult cmp = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(),
                               (root / c.model / c.expect).string()});
    EXPECT_EQ(cmp.exit_code, 0) << "opset " << opset << ":\n" << cmp.describe();
  }
  if (!HasFailure()) fs::remove_all(out_dir);
}

INSTANTIATE_TEST_SUITE_P(
    Training, TrainingMode,
    ::testing::Values(
        // Dropout(p=0) in training mode: exactly the input (Dropout-12 with ratio 0 from 12).
        ModeCase{"dropout_p0", "train", "train", {9, 12, 17}},
        // BatchNorm on the batch's statistics (ReduceMean, the same form at every opset); the default
        // stays eval.
        ModeCase{"bn2d", "train", "train", {9, 12, 13, 14, 17}},
        ModeCase{"bn2d", "", "eval", {9, 17}},
        ModeCase{"bn2d", "eval", "eval", {17}},
        // momentum=None: forward() reads num_batches_tracked after counting the batch.
        ModeCase{"bn1d_momentum_none", "train", "train", {9, 14}},
        // Traced in training mode: the trace keeps it, in every mode (torch.onnx warns and does the same).
        ModeCase{"bn2d_trace_train", "train", "train", {9, 14}},
        ModeCase{"bn2d_trace_train", "eval", "train", {17}},
        // Convolution + BatchNorm: in training mode nothing is folded.
        ModeCase{"conv_bn", "train", "train", {9, 12, 14, 17}},
        ModeCase{"conv_bn_trace_train", "train", "train", {9, 17}},
        // preserve: each module's own flag, as saved.
        ModeCase{"conv_bn", "preserve", "eval", {9, 17}},
        ModeCase{"conv_bn_saved_train", "preserve", "train", {9, 14, 17}},
        ModeCase{"conv_bn_saved_train", "", "eval", {17}},
        // Fresh models (running mean 0, var 1) on inputs far from them: the batch's statistics, not
        // the running ones (ONNX Runtime's BatchNormalization training_mode=1 got these wrong).
        ModeCase{"bn2d_fresh", "train", "train", {9, 14, 17}},
        ModeCase{"bn2d_fresh", "eval", "eval", {17}},
        ModeCase{"bn1d_fresh_3d", "train", "train", {9, 15}},
        ModeCase{"conv_bn_fresh", "train", "train", {9, 13, 14, 17}},
        ModeCase{"conv_bn_fresh", "", "eval", {17}},
        ModeCase{"conv_bn_fresh_trace_train", "eval", "train", {12, 17}}),
    [](const ::testing::TestParamInfo<ModeCase>& info) {
      return info.param.model + "_" + (info.param.mode.empty() ? std::string("default") : info.param.mode);
    });

// Dropout(p=0.3) in training mode, in ONNX Runtime: about 30% zeros, the rest scaled by 1/0.7
// (RandomUniformLike below opset 12, Dropout-12 with training_mode from 12); in eval mode the identity.
TEST(TrainingDropout, StatisticsInTrainModeIdentityInEval) {
  const fs::path root = fixtures_root();
  const fs::path out_dir = fresh_out_dir();
  for (int opset : {9, 11, 12, 13, 17}) {
    const fs::path out = out_dir / ("train_" + std::to_string(opset) + ".onnx");
    const RunResult exported = export_case(root, "dropout_p03", out, opset, {"-q", "--training", "train"});
    ASSERT_EQ(exported.exit_code, 0) << exported.describe();
    const RunResult stats = run({node(), (source_dir() / "tests" / "training" / "dropout_stats.js").string(),
                                 out.string(), (root / "dropout_p03" / "train").string()});
    EXPECT_EQ(stats.exit_code, 0) << "opset " << opset << ":\n" << stats.describe();
    const std::string text = shown(out);
    if (opset >= 12) {
      EXPECT_EQ(count_of(text, "onnx::Dropout"), 1u) << "opset " << opset << ": one Dropout node\n" << text;
      EXPECT_EQ(count_of(text, "onnx::RandomUniformLike"), 0u) << text;
    } else {
      EXPECT_EQ(count_of(text, "onnx::Dropout"), 0u) << "opset " << opset << ": Dropout-" << opset
                                                << " has no training input\n" << text;
      EXPECT_EQ(count_of(text, "onnx::RandomUniformLike"), 1u) << text;
    }
  }
  for (int opset : {9, 17}) {
    const fs::path out = out_dir / ("eval_" + std::to_string(opset) + ".onnx");
    const RunResult exported = export_case(root, "dropout_p03", out, opset, {"-q"});
    ASSERT_EQ(exported.exit_code, 0) << exported.describe();
    const RunResult cmp = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(),
                               (root / "dropout_p03" / "eval").string()});
    EXPECT_EQ(cmp.exit_code, 0) << cmp.describe();
    const std::string text = shown(out);
    EXPECT_EQ(count_of(text, "onnx::Dropout") + count_of(text, "onnx::RandomUniformLike"), 0u) << text;
  }
  if (!HasFailure()) fs::remove_all(out_dir);
}

// The forms, read back: in training mode each BatchNorm is the batch's statistics (two ReduceMean,
// mean and variance) at every opset, no BatchNormalization (ONNX Runtime computes its training form
// wrongly on fresh statistics); the convolution's BatchNorm folded in eval mode only (torch.onnx's
// eval peephole), not in train or preserve mode; `check` accepts the export.
TEST(TrainingForms, BatchNormOnBatchStatisticsNotFolded) {
  const fs::path root = fixtures_root();
  const fs::path out_dir = fresh_out_dir();
  struct Form {
    std::string model, mode;
    int opset;
    size_t bn_nodes, reduce_means;
  };
  for (const Form& f : std::vector<Form>{{"bn2d", "train", 9, 0, 2},
                                         {"bn2d", "train", 14, 0, 2},
                                         {"bn2d", "eval", 14, 1, 0},
                                         {"conv_bn", "train", 17, 0, 4},
                                         {"conv_bn", "eval", 17, 0, 0},
                                         {"conv_bn", "preserve", 17, 2, 0},
                                         {"conv_bn_saved_train", "preserve", 9, 0, 4},
                                         {"conv_bn_fresh", "train", 17, 0, 4}}) {
    const std::string label = f.model + " --training " + f.mode + " --opset " + std::to_string(f.opset);
    const fs::path out = out_dir / (f.model + "_" + f.mode + "_" + std::to_string(f.opset) + ".onnx");
    const RunResult exported = export_case(root, f.model, out, f.opset, {"-q", "--training", f.mode});
    ASSERT_EQ(exported.exit_code, 0) << label << "\n" << exported.describe();
    const std::string text = shown(out);
    EXPECT_EQ(count_of(text, "onnx::BatchNormalization"), f.bn_nodes) << label << "\n" << text;
    EXPECT_EQ(count_of(text, "onnx::ReduceMean"), f.reduce_means) << label << "\n" << text;
    EXPECT_EQ(count_of(text, "onnx::Conv"), f.model.rfind("conv_bn", 0) == 0 ? 2u : 0u) << label << "\n" << text;
  }
  const std::string input = read_case(root, "conv_bn").at("cli_args")[1].get<std::string>();
  const RunResult checked =
      run({cli().string(), "check", (root / "conv_bn" / "model.pt").string(), "--training", "train", "--input", input});
  EXPECT_EQ(checked.exit_code, 0) << checked.describe();
  if (!HasFailure()) fs::remove_all(out_dir);
}

// Bad input and warnings: one printable line each.
TEST(TrainingErrors, UnknownModeIsOneUsageLine) {
  const fs::path root = fixtures_root();
  const fs::path out = fresh_out_dir() / "bad.onnx";
  const RunResult r = export_case(root, "bn2d", out, 17, {"--training", "sometimes"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  const auto err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.describe();
  EXPECT_EQ(err[0], "torch2onnx: error: bad --training 'sometimes' (expected eval, preserve or train)");
  EXPECT_FALSE(fs::exists(out));
}

TEST(TrainingErrors, TrainModeWithoutTrainingBehaviourWarns) {
  const fs::path root = fixtures_root();
  const fs::path out_dir = fresh_out_dir();
  const RunResult r = export_case(root, "mlp", out_dir / "mlp.onnx", 17, {"--training", "train"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  size_t warnings = 0;
  for (const auto& line : lines(r.err))
    if (line.find("no op that behaves differently in training") != std::string::npos) {
      ++warnings;
      EXPECT_EQ(line.rfind("torch2onnx: warning: --training train: ", 0), 0u) << line;
    }
  EXPECT_EQ(warnings, 1u) << r.describe();
  // The same model compared with PyTorch: train and eval are one computation here.
  const RunResult cmp = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(),
                             (out_dir / "mlp.onnx").string(), (root / "mlp" / "train").string()});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.describe();
}

TEST(TrainingErrors, ModeDisagreementAndDroppedUpdatesWarn) {
  const fs::path root = fixtures_root();
  const fs::path out_dir = fresh_out_dir();
  // A model traced in training mode, exported in eval mode: its ops keep train=True, with a warning.
  const RunResult traced = export_case(root, "bn2d_trace_train", out_dir / "a.onnx", 17, {});
  ASSERT_EQ(traced.exit_code, 0) << traced.describe();
  EXPECT_NE(traced.err.find("--training eval, but 1 op(s) are set to train=True (aten::batch_norm at "),
            std::string::npos) << traced.describe();
  // Training mode: the running statistics (and num_batches_tracked += 1) are not updated, said once.
  const RunResult scripted = export_case(root, "conv_bn", out_dir / "b.onnx", 17, {"--training", "train"});
  ASSERT_EQ(scripted.exit_code, 0) << scripted.describe();
  EXPECT_EQ(count_of(scripted.err, "the running statistics of 2 BatchNorm op(s) are not updated by the export "
                                   "(running_mean, running_var, num_batches_tracked)"), 1u)
      << scripted.describe();
  // Eval mode: nothing to say.
  const RunResult eval = export_case(root, "conv_bn", out_dir / "c.onnx", 17, {});
  ASSERT_EQ(eval.exit_code, 0) << eval.describe();
  EXPECT_EQ(eval.err.find("training"), std::string::npos) << eval.describe();
}

}  // namespace
}  // namespace t2o_e2e
