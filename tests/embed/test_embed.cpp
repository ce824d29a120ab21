// Through programs: the version from project(VERSION) everywhere, error lines chosen from libtorch's
// messages (and --verbose / T2O_DEBUG=1 for the whole message), and examples/embed built out of tree
// against an installed torch2onnx, exporting resnet18 in-process; the result matches PyTorch in ONNX Runtime.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <onnx/onnx_pb.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>

namespace t2o_e2e {
namespace {

const std::string kVersion = T2O_PROJECT_VERSION;
const char* const kPrefix = "torch2onnx: error: ";

bool contains(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }

// Serializes steps that write shared directories (ctest -j).
struct FileLock {
  int fd = -1;
  explicit FileLock(const fs::path& path) {
    fs::create_directories(path.parent_path());
    fd = ::open(path.c_str(), O_CREAT | O_RDWR, 0644);
    if (fd >= 0) ::flock(fd, LOCK_EX);
  }
  ~FileLock() {
    if (fd >= 0) ::close(fd);
  }
};

fs::path embed_work() { return T2O_EMBED_WORK_DIR; }

// The models of tests/embed/make_error_fixtures.py, made once.
fs::path error_fixtures() {
  const fs::path dir = embed_work() / "error_fixtures";
  FileLock lock(embed_work() / "error_fixtures.lock");
  if (!fs::exists(dir / "matmul.pt") || !fs::exists(dir / "quantized_load.pt")) {
    RunResult r = run({python(), (source_dir() / "tests" / "embed" / "make_error_fixtures.py").string(), dir.string()});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
  }
  return dir;
}

onnx::ModelProto read_model(const fs::path& path) {
  onnx::ModelProto model;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(model.ParseFromIstream(&in)) << path;
  return model;
}

// ---- the version: CMake's project(VERSION), through torch2onnx/version.h ----

TEST(Version, ProgramPacksAndModelsSayProjectVersion) {
  RunResult v = run({cli().string(), "--version"});
  ASSERT_EQ(v.exit_code, 0) << v.describe();
  EXPECT_EQ(v.out.rfind("torch2onnx " + kVersion + " (plugin ABI ", 0), 0u) << v.out;

  RunResult plugins = run({cli().string(), "plugins", "--json"});
  ASSERT_EQ(plugins.exit_code, 0) << plugins.describe();
  auto listing = nlohmann::json::parse(plugins.out);
  size_t bundled = 0;
  for (const auto& p : listing.at("plugins")) {
    ++bundled;
    EXPECT_EQ(p.at("version").get<std::string>(), kVersion) << p.dump();
  }
  EXPECT_GT(bundled, 10u);

  const fs::path out = fresh_out_dir() / "tiny.onnx";
  RunResult e = run({cli().string(), "export", (source_dir() / "examples" / "tiny_cnn" / "tiny_cnn.pt").string(), "-o",
                     out.string(), "--input", "float32[1,3,32,32]", "-q"});
  ASSERT_EQ(e.exit_code, 0) << e.describe();
  auto model = read_model(out);
  EXPECT_EQ(model.producer_name(), "torch2onnx");
  EXPECT_EQ(model.producer_version(), kVersion);
}

// ---- errors keep their reason ----

// Runs the command, checks the one-line contract and returns the line.
std::string error_line(const std::vector<std::string>& argv, int exit_code = 1) {
  RunResult r = run(argv);
  EXPECT_FALSE(r.crashed()) << r.describe();
  EXPECT_EQ(r.exit_code, exit_code) << r.describe();
  auto err = lines(r.err);
  EXPECT_EQ(err.size(), 1u) << "stderr must be one line\n" << r.describe();
  if (err.empty()) return {};
  EXPECT_EQ(err[0].rfind(kPrefix, 0), 0u) << r.describe();
  return err[0];
}

TEST(ErrorLine, QuantizedModelLoadFailureSaysWhy) {
  const fs::path model = error_fixtures() / "quantized_load.pt";
  const fs::path out = fresh_out_dir() / "q.onnx";
  std::string line = error_line({cli().string(), "export", model.string(), "-o", out.string(), "--input", "float32[4,4]"});
  EXPECT_TRUE(contains(line, model.string() + ": cannot load TorchScript: Could not run 'quantized::linear_prepack' "
                                             "with arguments from the 'CPU' backend."))
      << line;
  EXPECT_FALSE(contains(line, "The following operation failed")) << line;
  EXPECT_FALSE(fs::exists(out));
  // check says the same (an unreadable model is exit status 2 there).
  std::string checked = error_line({cli().string(), "check", model.string(), "--input", "float32[4,4]"}, 2);
  EXPECT_TRUE(contains(checked, "Could not run 'quantized::linear_prepack'")) << checked;
}

TEST(ErrorLine, FailingTorchScriptOpSaysWhy) {
  const fs::path model = error_fixtures() / "matmul.pt";
  const fs::path out = fresh_out_dir() / "mm.onnx";
  std::string line = error_line({cli().string(), "export", model.string(), "-o", out.string(), "--input",
                                 "float32[2,3]", "--input", "float32[2,3]"});
  EXPECT_TRUE(contains(line, "running the model on example inputs (--input float32[2,3] float32[2,3]) failed: "
                             "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"))
      << line;
  EXPECT_FALSE(fs::exists(out));
}

TEST(ErrorLine, VerboseAndDebugPrintTheWholeMessage) {
  const fs::path model = error_fixtures() / "matmul.pt";
  const fs::path out = fresh_out_dir() / "mm.onnx";
  const std::vector<std::string> args = {"export", model.string(), "-o", out.string(), "--input", "float32[2,3]",
                                         "--input", "float32[2,3]"};
  // (T2O_DEBUG=1 also prints debugging lines before the error.)
  auto check_verbose = [&](const RunResult& r) {
    EXPECT_EQ(r.exit_code, 1) << r.describe();
    auto err = lines(r.err);
    ASSERT_GT(err.size(), 3u) << r.describe();
    size_t k = 0;
    while (k < err.size() && err[k].rfind(kPrefix, 0) != 0) ++k;
    ASSERT_LT(k, err.size()) << r.describe();
    EXPECT_TRUE(contains(err[k], "mat1 and mat2 shapes cannot be multiplied")) << r.describe();
    EXPECT_EQ(err.at(k + 1), "torch2onnx: the whole message:") << r.describe();
    EXPECT_TRUE(contains(r.err, "Traceback of TorchScript")) << r.describe();
    EXPECT_TRUE(contains(r.err, "torch.mm(")) << "the failing op's source line\n" << r.describe();
  };
  std::vector<std::string> verbose = {cli().string(), "--verbose"};
  verbose.insert(verbose.end(), args.begin(), args.end());
  check_verbose(run(verbose));
  std::vector<std::string> debug = {"/usr/bin/env", "T2O_DEBUG=1", cli().string()};
  debug.insert(debug.end(), args.begin(), args.end());
  check_verbose(run(debug));
  EXPECT_FALSE(fs::exists(out));
}

// ---- the core as a library: examples/embed against an installed torch2onnx ----

struct Installed {
  fs::path prefix, embed_build;
  std::string error;  // a failed step, with its output
};

// `cmake --install` this build into <work>/prefix, then configure and build examples/embed against it.
const Installed& installed() {
  static Installed inst = [] {
    Installed r;
    FileLock lock(embed_work() / "install.lock");
    r.prefix = embed_work() / "prefix";
    r.embed_build = embed_work() / "embed_build";
    auto step = [&](const std::vector<std::string>& argv) {
      if (!r.error.empty()) return;
      RunResult res = run(argv);
      if (res.crashed() || res.exit_code != 0) r.error = res.describe();
    };
    step({T2O_CMAKE, "--install", T2O_BINARY_DIR, "--prefix", r.prefix.string()});
    step({T2O_CMAKE, "-S", (source_dir() / "examples" / "embed").string(), "-B", r.embed_build.string(),
          "-DCMAKE_PREFIX_PATH=" + r.prefix.string(), "-DCMAKE_BUILD_TYPE=Release",
          "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"});
    step({T2O_CMAKE, "--build", r.embed_build.string()});
    return r;
  }();
  return inst;
}

TEST(Embedded, PrefixHoldsTheLibraryHeadersAndPackage) {
  const Installed& inst = installed();
  ASSERT_TRUE(inst.error.empty()) << inst.error;
  EXPECT_TRUE(fs::exists(inst.prefix / "lib" / "libtorch2onnx_core.so"));
  EXPECT_TRUE(fs::is_regular_file(inst.prefix / "include" / "torch2onnx" / "torch2onnx.hpp"));
  EXPECT_TRUE(fs::is_regular_file(inst.prefix / "include" / "torch2onnx" / "core" / "exporter.hpp"));
  EXPECT_TRUE(fs::is_regular_file(inst.prefix / "include" / "torch2onnx" / "registry.hpp"));
  EXPECT_TRUE(fs::is_regular_file(inst.prefix / "include" / "torch2onnx" / "version.h"));
  std::ifstream cache(inst.embed_build / "CMakeCache.txt");
  std::string text((std::istreambuf_iterator<char>(cache)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(contains(text, "Torch2Onnx_DIR:PATH=" + (inst.prefix / "lib" / "cmake" / "Torch2Onnx").string())) << text;
}

TEST(Embedded, ExportsResnet18InProcessAndMatchesInOnnxRuntime) {
  const Installed& inst = installed();
  ASSERT_TRUE(inst.error.empty()) << inst.error;
  const fs::path root = work_dir() / "zoo";
  RunResult made = run({python(), (source_dir() / "tests" / "zoo" / "make_zoo_fixtures.py").string(), root.string(),
                        "resnet18"});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  const fs::path fix = root / "resnet18";
  const fs::path out = fresh_out_dir() / "resnet18.onnx";
  std::vector<std::string> args = {(inst.embed_build / "embed_export").string(), (fix / "model.pt").string(),
                                   out.string(), "--time"};
  const auto meta = read_meta(fix);  // (not in the range-for: .at() of a temporary would dangle)
  for (const auto& s : meta.at("cli_inputs")) {
    args.push_back("--input");
    args.push_back(s.get<std::string>());
  }
  RunResult exported = run(args);
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  EXPECT_TRUE(contains(exported.out, "with torch2onnx " + kVersion)) << exported.out;
  EXPECT_TRUE(contains(exported.out, "export_seconds: ")) << exported.out;
  EXPECT_EQ(exported.err, "") << "no warnings, no refused packs\n" << exported.describe();
  RunResult cmp = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(), fix.string()});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.describe();
  auto model = read_model(out);
  EXPECT_EQ(model.producer_version(), kVersion);
}

TEST(Embedded, ErrorsAreOneLine) {
  const Installed& inst = installed();
  ASSERT_TRUE(inst.error.empty()) << inst.error;
  const fs::path out = fresh_out_dir() / "mm.onnx";
  RunResult r = run({(inst.embed_build / "embed_export").string(), (error_fixtures() / "matmul.pt").string(),
                     out.string(), "--input", "float32[2,3]", "--input", "float32[2,3]"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  auto err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.describe();
  EXPECT_TRUE(contains(err[0], "embed_export: error: running the model on example inputs")) << r.describe();
  EXPECT_TRUE(contains(err[0], "mat1 and mat2 shapes cannot be multiplied")) << r.describe();
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace t2o_e2e
