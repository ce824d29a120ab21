// Vendor op packs end to end, as a vendor works: install torch2onnx into a scratch prefix, build the
// examples against that prefix alone in separate builds, export models calling custom TorchScript
// ops with the installed program; check structure (and the ONNX checker) and run in ONNX Runtime
// what it can run. Then the optional com.microsoft pack, and the deliberately broken packs.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include "e2e_util.hpp"

namespace t2o_e2e {
namespace {

fs::path vendor_work() { return T2O_VENDOR_WORK_DIR; }
std::string cmake() { return T2O_CMAKE; }

bool contains(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }

// Serializes the steps that write shared directories (ctest may run tests in parallel).
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

struct Installed {
  fs::path prefix;
  fs::path cli;
  fs::path vendor_build;  // examples/vendor_plugin built against the prefix
  fs::path json_build;    // examples/json_pack "built" (checked + copied) against the prefix
  std::string error;      // non-empty when a step failed (with its output)
};

// `cmake --install` this build into <work>/prefix, then configure + build both examples against it.
// Incremental: later calls (other test processes) only redo what changed.
const Installed& installed() {
  static Installed inst = [] {
    Installed r;
    FileLock lock(vendor_work() / "install.lock");
    r.prefix = vendor_work() / "prefix";
    r.cli = r.prefix / "bin" / "torch2onnx";
    r.vendor_build = vendor_work() / "vendor_plugin_build";
    r.json_build = vendor_work() / "json_pack_build";
    auto step = [&](const std::vector<std::string>& argv) {
      if (!r.error.empty()) return;
      RunResult res = run(argv);
      if (res.crashed() || res.exit_code != 0) r.error = res.describe();
    };
    step({cmake(), "--install", T2O_BINARY_DIR, "--prefix", r.prefix.string()});
    for (const auto& [src, build] : {std::pair{std::string("vendor_plugin"), r.vendor_build},
                                    std::pair{std::string("json_pack"), r.json_build}}) {
      step({cmake(), "-S", (source_dir() / "examples" / src).string(), "-B", build.string(),
            "-DCMAKE_PREFIX_PATH=" + r.prefix.string(), "-DCMAKE_BUILD_TYPE=Release",
            "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"});
      step({cmake(), "--build", build.string()});
    }
    return r;
  }();
  return inst;
}

#define REQUIRE_INSTALLED()                                   \
  const Installed& inst = installed();                        \
  ASSERT_TRUE(inst.error.empty()) << inst.error

fs::path vendor_pack() { return installed().vendor_build / "myvendor_pack.so"; }
fs::path json_packs() { return installed().json_build / "packs"; }

fs::path vendor_fixture(const std::string& name) {
  const fs::path dir = vendor_work() / "fixtures";
  RunResult r = run({python(), (source_dir() / "tests" / "vendor" / "make_vendor_fixtures.py").string(), dir.string(), name});
  if (r.crashed() || r.exit_code != 0) {
    ADD_FAILURE() << "fixture generation failed for '" << name << "'\n" << r.describe();
    throw std::runtime_error("fixture generation failed");
  }
  return dir / name;
}

// torch2onnx export FIXTURE -o OUT [extra...] with the given program.
RunResult export_fixture(const fs::path& program, const fs::path& fx, const fs::path& out,
                         const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {program.string(), "export", (fx / "model.pt").string(), "-o", out.string()};
  const auto meta = read_meta(fx);  // kept alive: the loop below iterates into it
  for (const auto& s : meta.at("cli_inputs")) {
    argv.push_back("--input");
    argv.push_back(s.get<std::string>());
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run(argv);
}

onnx::ModelProto load_onnx(const fs::path& path) {
  onnx::ModelProto m;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in && m.ParseFromIstream(&in)) << "cannot parse " << path;
  return m;
}

std::map<std::string, int64_t> opset_imports(const onnx::ModelProto& m) {
  std::map<std::string, int64_t> out;
  for (const auto& o : m.opset_import()) out[o.domain()] = o.version();
  return out;
}

std::vector<const onnx::NodeProto*> nodes_of(const onnx::ModelProto& m, const std::string& op_type) {
  std::vector<const onnx::NodeProto*> out;
  for (const auto& n : m.graph().node())
    if (n.op_type() == op_type) out.push_back(&n);
  return out;
}

const onnx::AttributeProto* attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

void expect_checker_ok(const onnx::ModelProto& m) {
  try {
    onnx::checker::check_model(m);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "ONNX checker: " << e.what();
  }
}

void expect_ort_matches(const fs::path& onnx_file, const fs::path& fx) {
  RunResult c = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), onnx_file.string(), fx.string()});
  EXPECT_EQ(c.exit_code, 0) << c.describe();
}

// ---- the installed SDK ----

TEST(InstalledSdk, PrefixHoldsProgramPacksHeadersAndCMakePackage) {
  REQUIRE_INSTALLED();
  EXPECT_TRUE(fs::is_regular_file(inst.cli));
  EXPECT_FALSE(list_dir(inst.prefix / "lib" / "torch2onnx" / "plugins").empty());
  EXPECT_TRUE(fs::is_directory(inst.prefix / "lib" / "torch2onnx" / "optional" / "com.microsoft"));
  EXPECT_TRUE(fs::is_regular_file(inst.prefix / "include" / "torch2onnx" / "plugin.h"));
  EXPECT_TRUE(fs::is_regular_file(inst.prefix / "include" / "torch2onnx" / "plugin.hpp"));
  // torch2onnx's headers only (no libtorch, ONNX or protobuf headers installed): the SDK's (plugin.h,
  // plugin.hpp, version.h: all a pack needs) and the core library's (torch2onnx.hpp, core/, registry.hpp).
  EXPECT_EQ(list_dir(inst.prefix / "include"), std::vector<std::string>{"torch2onnx"});
  EXPECT_EQ(list_dir(inst.prefix / "include" / "torch2onnx"),
            (std::vector<std::string>{"core", "plugin.h", "plugin.hpp", "registry.hpp", "torch2onnx.hpp", "version.h"}));
  // The example was configured against the prefix's package.
  std::ifstream cache(inst.vendor_build / "CMakeCache.txt");
  std::string text((std::istreambuf_iterator<char>(cache)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(contains(text, "Torch2OnnxSDK_DIR:PATH=" + inst.prefix.string())) << "Torch2OnnxSDK_DIR not under the prefix";
  EXPECT_FALSE(contains(text, "Torch_DIR")) << "the example must not need libtorch";
  EXPECT_FALSE(contains(text, "ONNX_DIR")) << "the example must not need ONNX";
}

TEST(InstalledSdk, OutOfTreePackExportsTheEntryPointOnly) {
  REQUIRE_INSTALLED();
  ASSERT_TRUE(fs::is_regular_file(vendor_pack()));
  RunResult nm = run({"nm", "-D", "--defined-only", vendor_pack().string()});
  ASSERT_EQ(nm.exit_code, 0) << nm.describe();
  std::vector<std::string> symbols;
  for (const auto& line : lines(nm.out)) {
    auto pos = line.find_last_of(' ');
    std::string sym = pos == std::string::npos ? line : line.substr(pos + 1);
    if (!sym.empty()) symbols.push_back(sym);
  }
  EXPECT_EQ(symbols, std::vector<std::string>{"t2o_plugin_entry"}) << nm.out;
}

TEST(InstalledSdk, InstalledProgramListsTheVendorPacks) {
  REQUIRE_INSTALLED();
  RunResult r = run({inst.cli.string(), "plugins", "--strict", "--plugin-path", vendor_pack().string(),
                     "--plugin-path", json_packs().string()});
  ASSERT_FALSE(r.crashed()) << r.describe();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "myvendor 1.0")) << r.out;
  EXPECT_TRUE(contains(r.out, "myvendor-json 1.0")) << r.out;
  EXPECT_TRUE(contains(r.out, "com.myvendor opset 1")) << r.out;
  EXPECT_TRUE(contains(r.out, "JSON")) << r.out;
}

// ---- the C++ example pack (examples/vendor_plugin) ----

TEST(VendorPlugin, ConvertsCustomOpsIntoTheVendorDomain) {
  REQUIRE_INSTALLED();
  const fs::path fx = vendor_fixture("custom_ops");
  const fs::path out = fresh_out_dir() / "custom_ops.onnx";
  RunResult r = export_fixture(inst.cli, fx, out, {"--plugin-path", vendor_pack().string()});
  ASSERT_FALSE(r.crashed()) << r.describe();
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto m = load_onnx(out);
  expect_checker_ok(m);
  auto imports = opset_imports(m);
  EXPECT_EQ(imports["com.myvendor"], 2) << "without --custom-opset the newest version is used";
  EXPECT_EQ(imports[""], 17);
  auto fused = nodes_of(m, "FusedGelu");
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(fused[0]->domain(), "com.myvendor");
  EXPECT_EQ(fused[0]->input_size(), 2);  // version 2: alpha is an input
  EXPECT_EQ(attr(*fused[0], "alpha"), nullptr);
  EXPECT_EQ(nodes_of(m, "Add").size(), 1u);  // scaled_add: standard ONNX
  EXPECT_EQ(nodes_of(m, "Mul").size(), 1u);
}

TEST(VendorPlugin, CustomOpsetSelectsTheDomainVersion) {
  REQUIRE_INSTALLED();
  const fs::path fx = vendor_fixture("custom_ops");
  const fs::path out = fresh_out_dir() / "custom_ops_v1.onnx";
  RunResult r = export_fixture(inst.cli, fx, out,
                               {"--plugin-path", vendor_pack().string(), "--custom-opset", "com.myvendor=1"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto m = load_onnx(out);
  expect_checker_ok(m);
  EXPECT_EQ(opset_imports(m)["com.myvendor"], 1);
  auto fused = nodes_of(m, "FusedGelu");
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(fused[0]->input_size(), 1);  // version 1: alpha is an attribute
  const auto* alpha = attr(*fused[0], "alpha");
  ASSERT_NE(alpha, nullptr);
  EXPECT_EQ(alpha->type(), onnx::AttributeProto::FLOAT);
  EXPECT_FLOAT_EQ(alpha->f(), 0.5f);
}

TEST(VendorPlugin, CustomOpsetBadValueIsAUsageError) {
  REQUIRE_INSTALLED();
  const fs::path fx = vendor_fixture("custom_ops");
  const fs::path out = fresh_out_dir() / "x.onnx";
  for (const char* bad : {"com.myvendor", "=1", "com.myvendor=x", "com.myvendor=0"}) {
    RunResult r = export_fixture(inst.cli, fx, out, {"--plugin-path", vendor_pack().string(), "--custom-opset", bad});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_TRUE(contains(r.err, "--custom-opset")) << r.describe();
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST(VendorPlugin, WithoutThePackTheModelStillFailsCleanly) {
  REQUIRE_INSTALLED();
  const fs::path fx = vendor_fixture("custom_ops");
  const fs::path out = fresh_out_dir() / "x.onnx";
  RunResult r = export_fixture(inst.cli, fx, out, {});
  ASSERT_FALSE(r.crashed()) << r.describe();
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_TRUE(contains(r.err, "myvendor::fused_gelu")) << r.describe();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.describe();
}

TEST(VendorPlugin, StandardOnnxFromACustomOpRunsInOnnxRuntime) {
  REQUIRE_INSTALLED();
  const fs::path fx = vendor_fixture("scaled_add");
  const fs::path out = fresh_out_dir() / "scaled_add.onnx";
  RunResult r = export_fixture(inst.cli, fx, out, {"--plugin-path", vendor_pack().string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto m = load_onnx(out);
  EXPECT_EQ(opset_imports(m).count("com.myvendor"), 0u) << "no vendor node, no vendor domain";
  expect_ort_matches(out, fx);
}

TEST(VendorPlugin, OverridesTheBundledGelu) {
  REQUIRE_INSTALLED();
  const fs::path fx = vendor_fixture("gelu");
  const fs::path dir = fresh_out_dir();
  // Bundled only: the decomposition (Erf).
  RunResult plain = export_fixture(inst.cli, fx, dir / "plain.onnx", {});
  ASSERT_EQ(plain.exit_code, 0) << plain.describe();
  EXPECT_EQ(nodes_of(load_onnx(dir / "plain.onnx"), "Erf").size(), 1u);
  // With the vendor pack on --plugin-path, at every target opset: the vendor's fused op.
  for (const char* opset : {"9", "13", "17"}) {
    const fs::path out = dir / (std::string("vendor_") + opset + ".onnx");
    RunResult r = export_fixture(inst.cli, fx, out, {"--opset", opset, "--plugin-path", vendor_pack().string()});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    auto m = load_onnx(out);
    expect_checker_ok(m);
    EXPECT_EQ(nodes_of(m, "Erf").size(), 0u) << "opset " << opset;
    ASSERT_EQ(nodes_of(m, "FusedGelu").size(), 1u) << "opset " << opset;
    EXPECT_EQ(nodes_of(m, "FusedGelu")[0]->domain(), "com.myvendor");
    EXPECT_EQ(opset_imports(m)["com.myvendor"], 2);
  }
}

// ---- the optional com.microsoft pack ----

TEST(ComMicrosoft, NotActiveByDefault) {
  REQUIRE_INSTALLED();
  const fs::path fx = vendor_fixture("gelu");
  const fs::path out = fresh_out_dir() / "gelu.onnx";
  RunResult r = export_fixture(inst.cli, fx, out, {});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto m = load_onnx(out);
  EXPECT_EQ(opset_imports(m).count("com.microsoft"), 0u);
  EXPECT_TRUE(nodes_of(m, "Gelu").empty());
  RunResult p = run({inst.cli.string(), "plugins"});
  EXPECT_FALSE(contains(p.out, "com.microsoft")) << p.out;
}

TEST(ComMicrosoft, GeluAndFastGeluRunInOnnxRuntime) {
  REQUIRE_INSTALLED();
  const fs::path dir = fresh_out_dir();
  for (const auto& [fixture_name, op_type] : {std::pair{"gelu", "Gelu"}, std::pair{"gelu_tanh", "FastGelu"}}) {
    const fs::path fx = vendor_fixture(fixture_name);
    for (const char* how : {"enable", "path"}) {
      const fs::path out = dir / (std::string(fixture_name) + "_" + how + ".onnx");
      std::vector<std::string> extra =
          std::string(how) == "enable"
              ? std::vector<std::string>{"--enable-pack", "com.microsoft"}
              : std::vector<std::string>{"--plugin-path", (inst.prefix / "lib/torch2onnx/optional/com.microsoft").string()};
      RunResult r = export_fixture(inst.cli, fx, out, extra);
      ASSERT_EQ(r.exit_code, 0) << r.describe();
      auto m = load_onnx(out);
      expect_checker_ok(m);
      EXPECT_EQ(opset_imports(m)["com.microsoft"], 1);
      auto n = nodes_of(m, op_type);
      ASSERT_EQ(n.size(), 1u) << fixture_name;
      EXPECT_EQ(n[0]->domain(), "com.microsoft");
      EXPECT_TRUE(nodes_of(m, "Erf").empty() && nodes_of(m, "Tanh").empty());
      expect_ort_matches(out, fx);
    }
  }
}

TEST(ComMicrosoft, UnknownOptionalPackIsAUsageError) {
  REQUIRE_INSTALLED();
  RunResult r = run({inst.cli.string(), "plugins", "--enable-pack", "com.nobody"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_TRUE(contains(r.err, "com.nobody") && contains(r.err, "com.microsoft")) << r.describe();
}

// ---- the JSON example pack (examples/json_pack) ----

TEST(JsonPack, CustomOpsToStandardAndContribOpsRunInOnnxRuntime) {
  REQUIRE_INSTALLED();
  const fs::path fx = vendor_fixture("json_ops");
  const fs::path out = fresh_out_dir() / "json_ops.onnx";
  RunResult r = export_fixture(inst.cli, fx, out, {"--plugin-path", json_packs().string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto m = load_onnx(out);
  expect_checker_ok(m);
  auto leaky = nodes_of(m, "LeakyRelu");
  ASSERT_EQ(leaky.size(), 1u);
  ASSERT_NE(attr(*leaky[0], "alpha"), nullptr);
  EXPECT_FLOAT_EQ(attr(*leaky[0], "alpha")->f(), 0.2f);
  auto fast = nodes_of(m, "FastGelu");
  ASSERT_EQ(fast.size(), 1u);
  EXPECT_EQ(fast[0]->domain(), "com.microsoft");
  EXPECT_EQ(fast[0]->input_size(), 2);
  EXPECT_EQ(opset_imports(m)["com.microsoft"], 1);
  expect_ort_matches(out, fx);
}

// A custom op whose arguments are all constants (a weight) is not folded by graph passes into the
// placeholder kernel's values: it is converted, and the result is right.
TEST(JsonPack, CustomOpOnConstantsIsConvertedNotFolded) {
  REQUIRE_INSTALLED();
  const fs::path fx = vendor_fixture("json_const");
  const fs::path out = fresh_out_dir() / "json_const.onnx";
  RunResult r = export_fixture(inst.cli, fx, out, {"--plugin-path", json_packs().string()});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(nodes_of(load_onnx(out), "LeakyRelu").size(), 1u);
  expect_ort_matches(out, fx);
}

TEST(JsonPack, VendorDomainNodeWithTypedAttributes) {
  REQUIRE_INSTALLED();
  const fs::path fx = vendor_fixture("json_clip_norm");
  const fs::path out = fresh_out_dir() / "clip_norm.onnx";
  RunResult r = export_fixture(inst.cli, fx, out, {"--plugin-path", json_packs().string(), "--custom-opset", "com.myvendor=3"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto m = load_onnx(out);
  expect_checker_ok(m);
  EXPECT_EQ(opset_imports(m)["com.myvendor"], 3);
  auto n = nodes_of(m, "ClipNorm");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0]->domain(), "com.myvendor");
  ASSERT_NE(attr(*n[0], "axes"), nullptr);
  EXPECT_EQ(attr(*n[0], "axes")->type(), onnx::AttributeProto::INTS);
  EXPECT_EQ(std::vector<int64_t>(attr(*n[0], "axes")->ints().begin(), attr(*n[0], "axes")->ints().end()),
            std::vector<int64_t>{1});
  ASSERT_NE(attr(*n[0], "epsilon"), nullptr);
  EXPECT_FLOAT_EQ(attr(*n[0], "epsilon")->f(), 1e-5f);
  ASSERT_NE(attr(*n[0], "mode"), nullptr);
  EXPECT_EQ(attr(*n[0], "mode")->s(), "l2");
  ASSERT_NE(attr(*n[0], "keepdims"), nullptr);
  EXPECT_EQ(attr(*n[0], "keepdims")->i(), 1);
}

TEST(JsonPack, MalformedFilesAreRefusedAndTheRestLoad) {
  const fs::path dir = fresh_out_dir() / "packs";
  fs::create_directories(dir);
  fs::copy_file(source_dir() / "examples" / "json_pack" / "myvendor_ops.json", dir / "good.json");
  { std::ofstream(dir / "syntax.json") << "{\n  \"torch2onnx_pack\": 1,\n  \"name\": \"x\"\n  \"ops\": []\n}\n"; }
  { std::ofstream(dir / "badtype.json") << R"({"torch2onnx_pack": 1, "name": "b", "ops": [{"op": "x::y", "since_opset": "9", "node": {"op_type": "Relu", "inputs": [0]}}]})"; }
  { std::ofstream(dir / "badattr.json") << R"({"torch2onnx_pack": 1, "name": "c", "ops": [{"op": "x::z", "since_opset": 9, "node": {"op_type": "Relu", "inputs": [0], "attributes": {"alpha": {"type": "double", "value": 1}}}}]})"; }
  { std::ofstream(dir / "badschema.json") << R"({"torch2onnx_pack": 1, "name": "d", "schemas": ["x::w(Tensor a, -> Tensor"], "ops": [{"op": "x::w", "since_opset": 9, "node": {"op_type": "Relu", "inputs": [0]}}]})"; }
  RunResult r = run({cli().string(), "plugins", "--plugin-path", dir.string()});
  ASSERT_FALSE(r.crashed()) << r.describe();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "myvendor-json")) << "the good pack still loads\n" << r.out;
  auto refused_line = [&](const std::string& file) {
    for (const auto& l : lines(r.out))
      if (contains(l, file + ": ") && contains(l, "refused") == false && l.rfind("  ", 0) == 0) return l;
    return std::string();
  };
  EXPECT_TRUE(contains(refused_line("syntax.json"), "line 4")) << r.out;
  EXPECT_TRUE(contains(refused_line("badtype.json"), "ops[0].since_opset")) << r.out;
  EXPECT_TRUE(contains(refused_line("badtype.json"), "expected an integer")) << r.out;
  EXPECT_TRUE(contains(refused_line("badattr.json"), "ops[0].node.attributes.alpha.type")) << r.out;
  EXPECT_TRUE(contains(refused_line("badschema.json"), "x::w(Tensor a, -> Tensor")) << r.out;
  RunResult strict = run({cli().string(), "plugins", "--strict", "--plugin-path", dir.string()});
  EXPECT_EQ(strict.exit_code, 1) << strict.describe();
}

// ---- deliberately broken packs (tests/abi_plugins) through the program ----

struct Broken {
  const char* dir;
  const char* reason;  // in the refusal line
};

TEST(BrokenPacks, PluginsListsEachRefusedFileWithItsReason) {
  const std::vector<Broken> cases = {
      {"no_entry", "t2o_plugin_entry"},
      {"major_next", "major differs"},
      {"major_zero", "major differs"},
      {"register_error", "deliberate failure from the register_error pack"},
      {"duplicate", "duplicate"},
      {"bad_schema", "this is not a schema"},
      {"unparsable_schema", "test::unparsable(Tensor x, -> Tensor"},
      {"null_entry", "NULL"},
      {"small_struct", "struct_size"},
  };
  for (const auto& c : cases) {
    const fs::path dir = plugin_root() / c.dir;
    RunResult r = run({cli().string(), "plugins", "--plugin-path", dir.string()});
    ASSERT_FALSE(r.crashed()) << r.describe();
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    std::string line;
    for (const auto& l : lines(r.out))
      if (contains(l, "t2o_abi_" + std::string(c.dir) + ".so: ")) line = l;
    EXPECT_TRUE(contains(line, c.reason)) << c.dir << "\n" << r.out;
    // And export goes on without it, with one warning line naming the file.
    const fs::path fx = vendor_fixture("relu");
    const fs::path out = fresh_out_dir() / (std::string(c.dir) + ".onnx");
    RunResult e = export_fixture(cli(), fx, out, {"--plugin-path", dir.string()});
    ASSERT_FALSE(e.crashed()) << e.describe();
    EXPECT_EQ(e.exit_code, 0) << e.describe();
    size_t warnings = 0;
    for (const auto& l : lines(e.err))
      if (contains(l, "warning") && contains(l, "t2o_abi_" + std::string(c.dir) + ".so")) ++warnings;
    EXPECT_EQ(warnings, 1u) << e.describe();
  }
}

TEST(BrokenPacks, NewerMinorIsAccepted) {
  RunResult r = run({cli().string(), "plugins", "--strict", "--plugin-path", (plugin_root() / "minor_newer").string()});
  ASSERT_FALSE(r.crashed()) << r.describe();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "minor-newer 1.0")) << r.out;
}

TEST(BrokenPacks, FailingSymbolicsGiveOneLineNamingThePack) {
  const fs::path fx = vendor_fixture("relu");
  for (const auto& [dir, message] : {std::pair{"symbolic_error", "deliberate failure from the symbolic_error pack"},
                                     std::pair{"throwing", "deliberate exception from the throwing pack"}}) {
    const fs::path out = fresh_out_dir() / (std::string(dir) + ".onnx");
    RunResult r = export_fixture(cli(), fx, out, {"--plugin-path", (plugin_root() / dir).string()});
    ASSERT_FALSE(r.crashed()) << r.describe();
    EXPECT_EQ(r.exit_code, 1) << r.describe();
    auto err = lines(r.err);
    ASSERT_EQ(err.size(), 1u) << r.describe();
    EXPECT_TRUE(contains(err[0], "aten::relu")) << err[0];
    EXPECT_TRUE(contains(err[0], "t2o_abi_" + std::string(dir) + ".so")) << err[0];
    EXPECT_TRUE(contains(err[0], message)) << err[0];
    EXPECT_FALSE(fs::exists(out));
  }
}

TEST(BrokenPacks, TwoUserPacksClaimingTheSameOpNameBothFiles) {
  RunResult r = run({cli().string(), "plugins", "--plugin-path", (plugin_root() / "good").string(), "--plugin-path",
                     (plugin_root() / "clash").string()});
  ASSERT_FALSE(r.crashed()) << r.describe();
  std::string line;
  for (const auto& l : lines(r.out))
    if (contains(l, "t2o_abi_clash.so: ")) line = l;
  EXPECT_TRUE(contains(line, "t2o_abi_good.so")) << r.out;
  EXPECT_TRUE(contains(line, "test::good_op")) << r.out;
  // Marked as an override, the second pack replaces the first instead.
  RunResult o = run({cli().string(), "plugins", "--strict", "--plugin-path", (plugin_root() / "good").string(),
                     "--plugin-path", (plugin_root() / "override").string()});
  EXPECT_EQ(o.exit_code, 0) << o.describe();
}

}  // namespace
}  // namespace t2o_e2e
