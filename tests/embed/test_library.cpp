// The library API (torch2onnx/torch2onnx.hpp) in-process, linked with libtorch2onnx_core.so as a program
// embedding torch2onnx is: a module in memory and a file, progress and warnings, errors as exceptions with
// one line (and libtorch's whole message in details()), lazy weights without a process-wide handler, packs
// found relative to the library.
#include <torch2onnx/torch2onnx.hpp>

#include <gtest/gtest.h>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

namespace {

namespace fs = std::filesystem;

fs::path work_dir() {
  fs::path dir = fs::path(T2O_LIBRARY_WORK_DIR) / ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A scripted module in memory: relu(x) * w + 1, with a weight of `n` floats; in training mode.
torch::jit::Module tiny_module(int64_t n = 4) {
  torch::jit::Module m("__torch__.Tiny");
  m.register_attribute("training", c10::BoolType::get(), true);  // as every scripted module has
  m.register_parameter("w", torch::randn({n}), false);
  m.define("def forward(self, x):\n    return torch.relu(x) * self.w + 1\n");
  m.train(true);
  return m;
}

const t2o::Registry& packs() {
  static auto registry = t2o::load_packs();
  return *registry;
}

t2o::ExportOptions options_for(const std::string& input) {
  t2o::ExportOptions options;
  options.inputs = {t2o::parse_input_spec(input)};
  return options;
}

// A whole file's bytes.
std::string file_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void (*segv_handler())(int) {
  struct sigaction current {};
  sigaction(SIGSEGV, nullptr, &current);
  return current.sa_handler;
}

TEST(Library, FindsTheBundledPacksBesideItself) {
  ASSERT_FALSE(packs().plugins().empty());
  bool bundled = false;
  for (const auto& p : packs().plugins()) {
    bundled |= p.origin == t2o::registry::Origin::Bundled && p.name == "opset9";
    EXPECT_EQ(fs::path(p.path).parent_path(), fs::path(T2O_BUNDLED_PLUGIN_DIR)) << p.path;
  }
  EXPECT_TRUE(bundled) << "opset9 not loaded from " << T2O_BUNDLED_PLUGIN_DIR;
  EXPECT_STREQ(t2o::library_version(), T2O_VERSION_STRING);
}

TEST(Library, ExportsAModuleInMemoryWithoutChangingIt) {
  auto module = tiny_module();
  const std::string code_before = module.get_method("forward").graph()->toString();
  const fs::path out = work_dir() / "tiny.onnx";
  std::set<std::string> phases;
  auto options = options_for("float32[2,4]");
  options.progress = [&](const std::string& phase, uint64_t, uint64_t) { phases.insert(phase); };
  auto stats = t2o::export_module(module, out.string(), options, packs());
  EXPECT_TRUE(fs::is_regular_file(out));
  EXPECT_GE(stats.onnx_nodes, 3u);  // Relu, Mul, Add
  EXPECT_GE(stats.initializers, 1u);  // w
  EXPECT_EQ(phases, (std::set<std::string>{"signature", "kernel-libraries", "custom-ops", "load", "prepare", "run",
                                           "convert", "check", "write"}));
  // The caller's module is as it was: still training, same graph, usable.
  EXPECT_TRUE(module.is_training());
  EXPECT_EQ(module.get_method("forward").graph()->toString(), code_before);
  auto y = module.forward({torch::ones({2, 4})}).toTensor();
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 4}));
}

// An export freezes copies, never the caller's module: the module, its submodules and the class type two
// of them share keep every attribute and method (freezing deletes both), and the module exports again.
TEST(Library, ExportLeavesSubmodulesAndTheirSharedTypeWhole) {
  torch::jit::Module child("__torch__.Scale");
  child.register_attribute("training", c10::BoolType::get(), false);
  child.register_parameter("w", torch::full({4}, 2.0), false);
  child.define("def forward(self, x):\n    return x * self.w\n");
  torch::jit::Module m("__torch__.Pair");
  m.register_attribute("training", c10::BoolType::get(), false);
  m.register_module("a", child);
  m.register_module("b", child.deepcopy());  // another object of the same class type
  m.define("def forward(self, x):\n    return self.a.forward(x) + self.b.forward(x)\n");
  ASSERT_EQ(m.attr("a").toModule().type(), m.attr("b").toModule().type());
  const fs::path dir = work_dir();
  auto options = options_for("float32[4]");
  for (const char* name : {"first.onnx", "second.onnx"}) {
    t2o::export_module(m, (dir / name).string(), options, packs());
    EXPECT_TRUE(fs::is_regular_file(dir / name)) << name;
    EXPECT_EQ(m.named_parameters().size(), 2u);
    EXPECT_TRUE(child.type()->hasAttribute("w"));
    EXPECT_TRUE(child.type()->findMethod("forward") != nullptr);
    auto y = m.forward({torch::ones({4})}).toTensor();
    EXPECT_TRUE(torch::equal(y, torch::full({4}, 4.0)));
  }
}

// export_module shares the module's weights instead of copying them: a model whose example run writes
// (BatchNorm's running statistics in training mode; the branch on a value sends the run to the CPU,
// where those writes happen) leaves the caller's buffers as they were, in both training modes.
TEST(Library, ExportWritesNoneOfTheModulesWeights) {
  torch::jit::Module m("__torch__.Norm");
  m.register_attribute("training", c10::BoolType::get(), true);
  m.register_parameter("w", torch::ones({3}), false);
  m.register_parameter("b", torch::zeros({3}), false);
  m.register_buffer("rm", torch::zeros({3}));
  m.register_buffer("rv", torch::ones({3}));
  m.define(R"(
def forward(self, x):
    y = torch.batch_norm(x, self.w, self.b, self.rm, self.rv, self.training, 0.5, 1e-5, False)
    if bool(y.sum() > 1000.0):
        y = y * 2.0
    return y
)");
  m.train(true);
  const at::Tensor rm = m.attr("rm").toTensor(), rv = m.attr("rv").toTensor();
  const void* rm_data = rm.data_ptr();
  for (auto mode : {t2o::core::TrainingMode::Train, t2o::core::TrainingMode::Preserve}) {
    auto options = options_for("float32[4,3]");
    options.training = mode;
    t2o::export_module(m, (work_dir() / "norm.onnx").string(), options, packs());
    EXPECT_TRUE(torch::equal(rm, torch::zeros({3}))) << rm;
    EXPECT_TRUE(torch::equal(rv, torch::ones({3}))) << rv;
  }
  EXPECT_EQ(m.attr("rm").toTensor().data_ptr(), rm_data);
  // The module still updates its own statistics when it runs (the test above would pass on a copy).
  m.forward({torch::randn({4, 3}) + 3});
  EXPECT_FALSE(torch::equal(rm, torch::zeros({3})));
}

// An existing output is replaced whole, as by a rename: another hard link to the old file keeps the
// old bytes (nothing was written into the old file), and no temporary file is left beside it.
TEST(Library, ReplacesAnExistingOutputWhole) {
  const fs::path dir = work_dir();
  const fs::path out = dir / "tiny.onnx", other = dir / "old_link";
  { std::ofstream(out) << "old contents"; }
  fs::create_hard_link(out, other);
  auto module = tiny_module();
  t2o::export_module(module, out.string(), options_for("float32[2,4]"), packs());
  EXPECT_EQ(file_bytes(other), "old contents");
  EXPECT_GT(fs::file_size(out), fs::file_size(other));
  EXPECT_EQ(fs::hard_link_count(out), 1u);
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"tiny.onnx", "old_link"}));
  // Twice more over its own output: still one file.
  t2o::export_module(module, out.string(), options_for("float32[2,4]"), packs());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);
}

// load_kernel_libraries() before the program's own torch::jit::load: torchvision's ops are registered
// and run (a model calling them then loads).
TEST(Library, LoadsTheKernelLibrariesBeforeTheProgramsModels) {
  bool has_torchvision = false;
  for (const auto& [name, path] : t2o::core::default_kernel_libraries()) has_torchvision |= name == "torchvision";
  if (!has_torchvision) GTEST_SKIP() << "torchvision's kernels are not installed";
  auto nms = [] { return c10::Dispatcher::singleton().findSchema({"torchvision::nms", ""}).has_value(); };
  ASSERT_FALSE(nms()) << "torchvision's ops were registered before the call";
  t2o::ExportOptions options;
  std::vector<std::string> warnings;
  options.warn = [&](const std::string& line) { warnings.push_back(line); };
  t2o::load_kernel_libraries(options);
  EXPECT_TRUE(nms());
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  // Its CPU kernel runs: of two equal boxes, one is kept.
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow("torchvision::nms", "");
  auto kept = op.typed<at::Tensor(const at::Tensor&, const at::Tensor&, double)>().call(
      torch::tensor({{0.f, 0.f, 1.f, 1.f}, {0.f, 0.f, 1.f, 1.f}}), torch::tensor({0.9f, 0.8f}), 0.5);
  EXPECT_EQ(kept.numel(), 1);
}

TEST(Library, ErrorsAreExceptionsWithOneLineAndTheWholeMessage) {
  auto module = tiny_module();
  const fs::path out = work_dir() / "bad.onnx";
  try {
    t2o::export_module(module, out.string(), options_for("float32[2,5]"), packs());
    FAIL() << "no error for a shape that does not broadcast";
  } catch (const t2o::ExportError& e) {
    const std::string line = e.what();
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    EXPECT_NE(line.find("must match the size of tensor b (4)"), std::string::npos) << line;
    EXPECT_EQ(line.find("The following operation failed"), std::string::npos) << line;
    EXPECT_NE(e.details().find("Traceback of TorchScript"), std::string::npos) << e.details();
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST(Library, WarningsGoToTheCallback) {
  // A scripted assert on tensor data inside a branch: the export drops the raising branch with a warning
  // naming its location.
  torch::jit::Module m("__torch__.Raising");
  m.register_attribute("training", c10::BoolType::get(), false);
  m.define(
      "def forward(self, x):\n"
      "    y = x + 1\n"
      "    if bool(y.sum() > 1000.0):\n"
      "        y = y * 2\n"
      "        assert bool(y.sum() < 0.0), 'too large'\n"
      "    return y\n");
  std::vector<std::string> warnings;
  auto options = options_for("float32[3]");
  options.warn = [&](const std::string& line) { warnings.push_back(line); };
  t2o::export_module(m, (work_dir() / "raising.onnx").string(), options, packs());
  ASSERT_FALSE(warnings.empty());
  for (const auto& w : warnings) EXPECT_EQ(w.find('\n'), std::string::npos) << w;
}

// Lazy weights are on by default in the library and install nothing process-wide: the weights become
// private mappings of the .pt, and the file is the same as an eager load's. The signal handler is
// used only when asked for.
TEST(Library, LazyWeightsInstallNoHandlerByDefault) {
  if (const char* eager = std::getenv("T2O_EAGER_WEIGHTS"); eager && *eager && std::string(eager) != "0")
    GTEST_SKIP() << "T2O_EAGER_WEIGHTS is set";
  const fs::path dir = work_dir();
  const fs::path model = dir / "large.pt";
  tiny_module(1 << 19).save(model.string());  // 2 MiB of weights: above the lazy loader's threshold
  auto before = segv_handler();
  auto options = options_for("float32[2,524288]");
  EXPECT_TRUE(options.lazy_weights);
  t2o::export_model(model.string(), (dir / "mapped.onnx").string(), options, packs());
  EXPECT_EQ(segv_handler(), before) << "the library installed a SIGSEGV handler without lazy_weights_handler";
  options.lazy_weights = false;
  t2o::export_model(model.string(), (dir / "eager.onnx").string(), options, packs());
  EXPECT_EQ(segv_handler(), before);
  EXPECT_TRUE(file_bytes(dir / "mapped.onnx") == file_bytes(dir / "eager.onnx"));
  options.lazy_weights = true;
  options.lazy_weights_handler = true;
  t2o::export_model(model.string(), (dir / "lazy.onnx").string(), options, packs());
  EXPECT_NE(segv_handler(), before) << "lazy_weights_handler = true installed no handler";
  EXPECT_EQ(fs::file_size(dir / "eager.onnx"), fs::file_size(dir / "lazy.onnx"));
}

// export_model's own head start on weights bound for OUT.data (core/src/assemble/weights_copy_ahead.hpp):
// the .pt's weight record is copied into OUT.data while the model loads and converts, and kept. The
// files are byte for byte those written without it (T2O_NO_HEAD_START=1); an export that fails after
// the copy began leaves neither output nor temporary file.
TEST(Library, ExportModelCopiesWeightsAheadChangingNoByte) {
  if (const char* eager = std::getenv("T2O_EAGER_WEIGHTS"); eager && *eager && std::string(eager) != "0")
    GTEST_SKIP() << "T2O_EAGER_WEIGHTS is set";
  const fs::path dir = work_dir();
  const fs::path model = dir / "large.pt";
  tiny_module(1 << 19).save(model.string());  // one 2 MiB record: above the 1 MiB the copy takes
  auto options = options_for("float32[2,524288]");
  options.external_data = true;
  for (const char* name : {"ahead", "plain", "failed"}) fs::create_directories(dir / name);
  const auto ahead = t2o::export_model(model.string(), (dir / "ahead" / "m.onnx").string(), options, packs());
  EXPECT_TRUE(ahead.external_data);
  EXPECT_EQ(ahead.bytes_written_ahead, uint64_t(1) << 21);
  ::setenv("T2O_NO_HEAD_START", "1", 1);
  const auto plain = t2o::export_model(model.string(), (dir / "plain" / "m.onnx").string(), options, packs());
  ::unsetenv("T2O_NO_HEAD_START");
  EXPECT_EQ(plain.bytes_written_ahead, 0u);
  for (const char* file : {"m.onnx", "m.onnx.data"})
    EXPECT_TRUE(file_bytes(dir / "ahead" / file) == file_bytes(dir / "plain" / file)) << file;
  // The example run fails (x cannot broadcast with w) after the copy began.
  auto bad = options_for("float32[2,3]");
  bad.external_data = true;
  EXPECT_THROW(t2o::export_model(model.string(), (dir / "failed" / "m.onnx").string(), bad, packs()), t2o::ExportError);
  EXPECT_TRUE(fs::is_empty(dir / "failed"));
}

}  // namespace
