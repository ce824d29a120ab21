// Loading real packs (tests/abi_plugins, built into T2O_TEST_PLUGIN_DIR/<name>/t2o_abi_<name>.so):
// acceptance, every refusal and its one-line reason, precedence between packs, search path.
#include <torch2onnx/registry.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include <unistd.h>

#ifndef T2O_TEST_PLUGIN_DIR
#error "T2O_TEST_PLUGIN_DIR must name the directory holding the test packs"
#endif

namespace {

namespace fs = std::filesystem;
using t2o::registry::Origin;
using t2o::registry::Registry;
using t2o::registry::Symbolic;

std::string pack_dir(const std::string& name) { return std::string(T2O_TEST_PLUGIN_DIR) + "/" + name; }
std::string pack_file_name(const std::string& name) { return "t2o_abi_" + name + ".so"; }
std::string pack_path(const std::string& name) { return pack_dir(name) + "/" + pack_file_name(name); }

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A scratch directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    path = fs::temp_directory_path() / ("t2o_registry_test_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// ---- a fake host, just enough for the identity symbolics of the test packs ----
struct FakeCall {
  int outputs_set = 0;
  t2o_value bound = T2O_NO_VALUE;
  std::string error;
};
FakeCall* call_of(t2o_ctx* ctx) { return reinterpret_cast<FakeCall*>(ctx); }

t2o_host_api fake_host() {
  t2o_host_api h{};
  h.struct_size = sizeof(t2o_host_api);
  h.abi_major = T2O_ABI_MAJOR;
  h.abi_minor = T2O_ABI_MINOR;
  h.node_kind = [](t2o_ctx*) -> const char* { return "test::good_op"; };
  h.node_location = [](t2o_ctx*) -> const char* { return ""; };
  h.num_inputs = [](t2o_ctx*) -> int32_t { return 1; };
  h.num_outputs = [](t2o_ctx*) -> int32_t { return 1; };
  h.input = [](t2o_ctx*, int32_t i) -> t2o_value { return 100 + i; };
  h.set_output = [](t2o_ctx* ctx, int32_t, t2o_value v) -> t2o_status {
    call_of(ctx)->outputs_set++;
    call_of(ctx)->bound = v;
    return T2O_OK;
  };
  h.set_error = [](t2o_ctx* ctx, const char* m) { call_of(ctx)->error = m ? m : ""; };
  h.log = [](t2o_ctx*, int32_t, const char*) {};
  return h;
}

// ---- the good pack ----
TEST(PluginLoading, GoodPackIsAccepted) {
  Registry r;
  EXPECT_NO_THROW(r.load_directory(pack_dir("good"), Origin::Bundled));
  for (const auto& x : r.refused()) ADD_FAILURE() << x.path << ": " << x.reason;
  ASSERT_EQ(r.plugins().size(), 1u);
  const auto& info = r.plugins()[0];
  EXPECT_EQ(info.name, "good");
  EXPECT_EQ(info.version, "1.2.3");
  EXPECT_EQ(info.abi_major, uint32_t(T2O_ABI_MAJOR));
  EXPECT_EQ(info.abi_minor, uint32_t(T2O_ABI_MINOR));
  EXPECT_EQ(info.origin, Origin::Bundled);
  EXPECT_EQ(info.num_symbolics, 3u);
  EXPECT_TRUE(contains(info.path, pack_file_name("good"))) << info.path;
  EXPECT_TRUE(fs::path(info.path).is_absolute()) << info.path;

  EXPECT_EQ(r.lookup("test::good_op", "", 8), nullptr);
  ASSERT_NE(r.lookup("test::good_op", "", 9), nullptr);
  EXPECT_EQ(r.lookup("test::good_op", "", 9)->since_opset, 9);
  EXPECT_EQ(r.lookup("test::good_op", "", 12)->since_opset, 9);
  EXPECT_EQ(r.lookup("test::good_op", "", 13)->since_opset, 13);
  EXPECT_EQ(r.lookup("test::good_op", "", 21)->since_opset, 13);
  EXPECT_EQ(r.lookup("test::good_op", "", 21)->plugin_index, 0u);
  ASSERT_NE(r.lookup("test::good_op", "com.example", 1), nullptr);
  EXPECT_EQ(r.lookup("test::good_op", "com.example", 1)->domain, "com.example");
  EXPECT_EQ(r.min_opset("test::good_op", ""), 9);
  EXPECT_EQ(r.all().size(), 3u);

  ASSERT_EQ(r.schemas().size(), 1u);
  EXPECT_EQ(r.schemas()[0].schema, "test::good_op(Tensor x) -> Tensor");
  EXPECT_EQ(r.schemas()[0].plugin_index, 0u);
}

TEST(PluginLoading, GoodPackSymbolicRunsThroughTheCAbi) {
  Registry r;
  ASSERT_TRUE(r.load_file(pack_path("good"), Origin::Bundled));
  t2o_host_api host = fake_host();
  for (int64_t target : {9, 13}) {
    const Symbolic* s = r.lookup("test::good_op", "", target);
    ASSERT_NE(s, nullptr);
    FakeCall call;
    EXPECT_EQ(s->fn(&host, reinterpret_cast<t2o_ctx*>(&call), s->user_data), T2O_OK) << call.error;
    EXPECT_EQ(call.bound, 100);
    EXPECT_EQ(call.outputs_set, target == 9 ? 1 : 2);  // the 13 version binds twice
  }
}

TEST(PluginLoading, LoadFileAcceptsADirectPath) {
  Registry r;
  EXPECT_TRUE(r.load_file(pack_path("good"), Origin::UserPath));
  ASSERT_EQ(r.plugins().size(), 1u);
  EXPECT_EQ(r.plugins()[0].origin, Origin::UserPath);
  Registry r2;
  r2.load_directory(pack_path("good"), Origin::UserPath);  // a file given as a "directory"
  EXPECT_EQ(r2.plugins().size(), 1u);
  EXPECT_TRUE(r2.refused().empty());
}

TEST(PluginLoading, TwoRegistriesShareALoadedPack) {
  Registry a, b;
  ASSERT_TRUE(a.load_file(pack_path("good"), Origin::Bundled));
  ASSERT_TRUE(b.load_file(pack_path("good"), Origin::Bundled));
  EXPECT_EQ(a.lookup("test::good_op", "", 9)->fn, b.lookup("test::good_op", "", 9)->fn);
  EXPECT_EQ(b.all().size(), 3u);
}

TEST(PluginLoading, SameFileTwiceIsIgnored) {
  Registry r;
  ASSERT_TRUE(r.load_file(pack_path("good"), Origin::Bundled));
  EXPECT_FALSE(r.load_file(pack_path("good"), Origin::UserPath));
  EXPECT_EQ(r.plugins().size(), 1u);
  ASSERT_EQ(r.refused().size(), 1u);
  EXPECT_TRUE(contains(r.refused()[0].reason, "already loaded")) << r.refused()[0].reason;

  // The same library through a symbolic link.
  TempDir tmp("symlink");
  fs::create_symlink(pack_path("good"), tmp.path / "alias.so");
  EXPECT_FALSE(r.load_file((tmp.path / "alias.so").string(), Origin::UserPath));
  EXPECT_EQ(r.plugins().size(), 1u);
  EXPECT_EQ(r.all().size(), 3u);
}

// ---- refusals ----
struct RefusalCase {
  const char* name;            // test_plugins/<name>
  std::vector<std::string> in_reason;
  const char* op;              // an op the pack registers (or would), never to be found
};

// Names the case in test output instead of dumping its bytes.
void PrintTo(const RefusalCase& c, std::ostream* os) { *os << c.name; }

std::string abi(int major, int minor) { return std::to_string(major) + "." + std::to_string(minor); }
const std::string kHost = "host speaks " + abi(T2O_ABI_MAJOR, T2O_ABI_MINOR);

class Refusal : public ::testing::TestWithParam<RefusalCase> {};

TEST_P(Refusal, IsRefusedWithAOneLineReason) {
  const RefusalCase& c = GetParam();
  for (Origin origin : {Origin::Bundled, Origin::UserPath}) {
    Registry r;
    EXPECT_NO_THROW(r.load_directory(pack_dir(c.name), origin));
    EXPECT_TRUE(r.plugins().empty());
    ASSERT_EQ(r.refused().size(), 1u);
    const auto& refused = r.refused()[0];
    EXPECT_TRUE(contains(refused.path, pack_file_name(c.name))) << refused.path;
    EXPECT_TRUE(contains(refused.reason, pack_file_name(c.name))) << refused.reason;
    for (const auto& s : c.in_reason) EXPECT_TRUE(contains(refused.reason, s)) << "'" << s << "' not in: " << refused.reason;
    EXPECT_FALSE(contains(refused.reason, "\n")) << refused.reason;
    // Transactional: nothing of a refused pack is kept.
    EXPECT_TRUE(r.all().empty());
    EXPECT_TRUE(r.schemas().empty());
    EXPECT_EQ(r.lookup(c.op, "", 100), nullptr);
    // Refusing again is harmless.
    EXPECT_FALSE(r.load_file(pack_path(c.name), origin));
    EXPECT_EQ(r.refused().size(), 2u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AbiPlugins, Refusal,
    ::testing::Values(
        RefusalCase{"major_next", {"ABI " + abi(T2O_ABI_MAJOR + 1, 0), kHost, "major"}, "test::major_next_op"},
        RefusalCase{"major_zero", {"ABI " + abi(0, T2O_ABI_MINOR), kHost, "major"}, "test::major_zero_op"},
        RefusalCase{"no_entry", {"t2o_plugin_entry"}, "test::none"},
        RefusalCase{"null_entry", {"NULL"}, "test::null_entry_op"},
        RefusalCase{"small_struct", {"struct_size"}, "test::small_struct_op"},
        RefusalCase{"register_error", {"deliberate failure from the register_error pack"}, "test::register_error_op"},
        RefusalCase{"ignored_reject", {"test::ignored_bad", "since_opset"}, "test::ignored_ok"},
        RefusalCase{"duplicate", {"test::dup", "duplicate"}, "test::dup_first"},
        RefusalCase{"bad_schema", {"this is not a schema"}, "test::bad_schema_op"}),
    [](const ::testing::TestParamInfo<RefusalCase>& info) { return std::string(info.param.name); });

// A newer minor ABI is accepted: the pack checks host->struct_size before using newer members.
TEST(PluginLoading, NewerMinorIsAccepted) {
  Registry r;
  r.load_directory(pack_dir("minor_newer"), Origin::UserPath);
  for (const auto& x : r.refused()) ADD_FAILURE() << x.path << ": " << x.reason;
  ASSERT_EQ(r.plugins().size(), 1u);
  EXPECT_EQ(r.plugins()[0].abi_major, uint32_t(T2O_ABI_MAJOR));
  EXPECT_EQ(r.plugins()[0].abi_minor, uint32_t(T2O_ABI_MINOR + 1));
  EXPECT_NE(r.lookup("test::minor_newer_op", "", 9), nullptr);
}

// With a schema checker installed (the program installs TorchScript's parser), a pack declaring a
// schema that does not parse is refused, naming the file and the schema.
TEST(PluginLoading, SchemaCheckerRefusesUnparsableSchemas) {
  Registry plain;
  EXPECT_TRUE(plain.load_file(pack_path("unparsable_schema"), Origin::UserPath));  // shape looks fine
  Registry r;
  r.set_schema_checker([](const std::string& s) -> std::string {
    return s.find("->") != std::string::npos && s.find(", ->") == std::string::npos ? "" : "expected a type";
  });
  EXPECT_FALSE(r.load_file(pack_path("unparsable_schema"), Origin::UserPath));
  ASSERT_EQ(r.refused().size(), 1u);
  const std::string& why = r.refused()[0].reason;
  EXPECT_TRUE(contains(why, pack_file_name("unparsable_schema"))) << why;
  EXPECT_TRUE(contains(why, "test::unparsable(Tensor x, -> Tensor")) << why;
  EXPECT_TRUE(contains(why, "expected a type")) << why;
  EXPECT_TRUE(r.schemas().empty());
  EXPECT_EQ(r.lookup("test::unparsable", "", 9), nullptr);
  // The good pack's schema passes the same checker.
  EXPECT_TRUE(r.load_file(pack_path("good"), Origin::UserPath));
}

TEST(PluginLoading, NotALibrary) {
  TempDir tmp("garbage");
  { std::ofstream(tmp.path / "garbage.so") << "this is not an ELF file\n"; }
  { std::ofstream(tmp.path / "empty.so"); }
  { std::ofstream(tmp.path / "notes.txt") << "ignored: not a library name\n"; }
  fs::create_directory(tmp.path / "subdir.so");  // a directory with a library's name: skipped
  Registry r;
  EXPECT_NO_THROW(r.load_directory(tmp.path.string(), Origin::UserPath));
  EXPECT_TRUE(r.plugins().empty());
  ASSERT_EQ(r.refused().size(), 2u);
  // Name order: empty.so, garbage.so.
  EXPECT_TRUE(contains(r.refused()[0].reason, "empty.so")) << r.refused()[0].reason;
  EXPECT_TRUE(contains(r.refused()[1].reason, "garbage.so")) << r.refused()[1].reason;
  for (const auto& x : r.refused()) {
    EXPECT_TRUE(contains(x.reason, "cannot be loaded")) << x.reason;
    EXPECT_FALSE(contains(x.reason, "\n")) << x.reason;
  }
}

TEST(PluginLoading, MissingDirectories) {
  const std::string missing = std::string(T2O_TEST_PLUGIN_DIR) + "/does_not_exist";
  Registry r;
  r.load_directory(missing, Origin::Bundled);  // a build without bundled packs: silent
  EXPECT_TRUE(r.refused().empty());
  r.load_directory(missing, Origin::UserPath);  // the user asked for it: reported
  ASSERT_EQ(r.refused().size(), 1u);
  EXPECT_TRUE(contains(r.refused()[0].reason, missing)) << r.refused()[0].reason;
  EXPECT_TRUE(contains(r.refused()[0].reason, "does not exist")) << r.refused()[0].reason;
  EXPECT_FALSE(r.load_file(missing + "/nope.so", Origin::UserPath));
  ASSERT_EQ(r.refused().size(), 2u);
  EXPECT_TRUE(contains(r.refused()[1].reason, "nope.so")) << r.refused()[1].reason;
  EXPECT_FALSE(r.load_file(pack_dir("good"), Origin::UserPath));  // a directory is not a file
  EXPECT_TRUE(r.plugins().empty());
}

TEST(PluginLoading, EveryTestPackTogetherNeverThrows) {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(T2O_TEST_PLUGIN_DIR))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  ASSERT_GE(dirs.size(), 13u);
  for (Origin origin : {Origin::Bundled, Origin::UserPath}) {
    Registry r;
    for (const auto& d : dirs) EXPECT_NO_THROW(r.load_directory(d.string(), origin));
    EXPECT_EQ(r.plugins().size() + r.refused().size(), dirs.size());
    for (const auto& p : r.plugins())
      EXPECT_TRUE(p.name == "good" || p.name == "override" || p.name == "clash" || p.name == "minor-newer" || p.name == "wide-attr" ||
                  p.name == "unparsable-schema" || p.name == "symbolic-error" || p.name == "throwing" ||
                  p.name == "wrong_gelu")
          << p.name;
    // Whatever won test::good_op at 9, dispatch still works.
    EXPECT_NE(r.lookup("test::good_op", "", 9), nullptr);
  }
}

// ---- precedence between packs ----
TEST(PluginPrecedence, UserPathPackOverridesBundled) {
  Registry r;
  ASSERT_TRUE(r.load_file(pack_path("good"), Origin::Bundled));
  ASSERT_TRUE(r.load_file(pack_path("override"), Origin::UserPath));
  ASSERT_EQ(r.plugins().size(), 2u);
  EXPECT_EQ(r.plugins()[1].name, "override");
  EXPECT_EQ(r.lookup("test::good_op", "", 9)->plugin_index, 1u);   // replaced
  EXPECT_EQ(r.lookup("test::good_op", "", 12)->plugin_index, 1u);
  // Explicit over bundled at every target: the user pack's 9 beats the bundled 13 too.
  EXPECT_EQ(r.lookup("test::good_op", "", 13)->plugin_index, 1u);
  EXPECT_EQ(r.lookup("test::good_op", "", 13)->since_opset, 9);
  EXPECT_EQ(r.lookup("test::good_op", "", 8), nullptr);  // below every registration: none
  ASSERT_NE(r.lookup("test::override_only", "", 9), nullptr);
  // Other domains are untouched.
  EXPECT_EQ(r.lookup("test::good_op", "com.example", 1)->plugin_index, 0u);

  // A pack on the user path wins without the flag too, and whatever the load order.
  Registry r2;
  ASSERT_TRUE(r2.load_file(pack_path("clash"), Origin::UserPath));
  ASSERT_TRUE(r2.load_file(pack_path("good"), Origin::Bundled));
  EXPECT_EQ(r2.lookup("test::good_op", "", 9)->plugin_index, 0u);  // the clash pack (user) kept it
  EXPECT_EQ(r2.lookup("test::good_op", "", 13)->plugin_index, 0u);
  EXPECT_EQ(r2.domains_of("test::good_op"), (std::vector<std::string>{"", "com.example"}));
}

TEST(PluginPrecedence, SameOriginClashIsRefusedNamingBothFiles) {
  for (Origin origin : {Origin::Bundled, Origin::UserPath}) {
    Registry r;
    ASSERT_TRUE(r.load_file(pack_path("good"), origin));
    EXPECT_FALSE(r.load_file(pack_path("clash"), origin));
    ASSERT_EQ(r.refused().size(), 1u);
    const std::string& why = r.refused()[0].reason;
    EXPECT_TRUE(contains(why, pack_file_name("good"))) << why;
    EXPECT_TRUE(contains(why, pack_file_name("clash"))) << why;
    EXPECT_TRUE(contains(why, "test::good_op")) << why;
    EXPECT_EQ(r.plugins().size(), 1u);
    EXPECT_EQ(r.lookup("test::clash_only", "", 9), nullptr);  // transactional
    EXPECT_EQ(r.lookup("test::good_op", "", 9)->plugin_index, 0u);
  }
}

TEST(PluginPrecedence, SameOriginOverrideFlagReplaces) {
  Registry r;
  ASSERT_TRUE(r.load_file(pack_path("good"), Origin::Bundled));
  ASSERT_TRUE(r.load_file(pack_path("override"), Origin::Bundled));
  EXPECT_TRUE(r.refused().empty());
  EXPECT_EQ(r.lookup("test::good_op", "", 9)->plugin_index, 1u);
  EXPECT_EQ(r.lookup("test::good_op", "", 9)->flags, T2O_SYMBOLIC_OVERRIDE);
}

// ---- search path ----
struct EnvGuard {
  std::string saved;
  bool had = false;
  EnvGuard() {
    if (const char* v = std::getenv("TORCH2ONNX_PLUGIN_PATH")) {
      had = true;
      saved = v;
    }
  }
  ~EnvGuard() {
    if (had) ::setenv("TORCH2ONNX_PLUGIN_PATH", saved.c_str(), 1);
    else ::unsetenv("TORCH2ONNX_PLUGIN_PATH");
  }
};

TEST(SearchPath, BundledThenEnvironmentThenUser) {
  EnvGuard guard;
  ::setenv("TORCH2ONNX_PLUGIN_PATH", ":/env/a::/env/b:", 1);
  auto path = t2o::registry::plugin_search_path("/opt/t2o/bin", {"/user/x", "", "rel/y"});
  ASSERT_EQ(path.size(), 5u);
  EXPECT_EQ(path[0].dir, "/opt/t2o/lib/torch2onnx/plugins");
  EXPECT_EQ(path[0].origin, Origin::Bundled);
  EXPECT_EQ(path[1].dir, "/env/a");
  EXPECT_EQ(path[2].dir, "/env/b");
  EXPECT_EQ(path[3].dir, "/user/x");
  EXPECT_EQ(path[4].dir, "rel/y");
  for (size_t i = 1; i < path.size(); ++i) EXPECT_EQ(path[i].origin, Origin::UserPath);

  ::unsetenv("TORCH2ONNX_PLUGIN_PATH");
  path = t2o::registry::plugin_search_path("/build/bin/", {});
  ASSERT_EQ(path.size(), 1u);
  EXPECT_EQ(path[0].dir, "/build/lib/torch2onnx/plugins");
}

TEST(SearchPath, ExecutableDir) {
  std::string dir = t2o::registry::executable_dir();
  ASSERT_FALSE(dir.empty());
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_EQ(fs::canonical(dir), fs::canonical("/proc/self/exe").parent_path());
}

}  // namespace
