// A pack built for the wrong ABI (tests/abi_plugins/major_next.c: ABI major + 1) given with
// --plugin-path: `plugins` reports it as refused with the reason; `export` skips it with a warning
// and still works with the bundled packs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

#include "e2e_util.hpp"

namespace t2o_e2e {
namespace {

const char* const kBadPack = "major_next";      // directory under <build>/test_plugins
const char* const kReason = "major differs";     // registry: "built for ABI 2.0, host speaks 1.0 (major differs)"

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

fs::path bad_pack_dir() {
  const fs::path dir = plugin_root() / kBadPack;
  EXPECT_TRUE(fs::is_directory(dir)) << dir << " missing: build the t2o_abi_plugins target";
  return dir;
}

// plugins lists the kernel libraries loaded before a model: torch2onnx's own two always (PyTorch 2.x
// compatibility, torch.onnx.ops), as files that exist; in the JSON too.
TEST(Plugins, ListsTheDefaultKernelLibraries) {
  const RunResult r = run({cli().string(), "plugins"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const auto at = r.out.find("kernel libraries loaded before a model");
  ASSERT_NE(at, std::string::npos) << r.out;
  for (const char* name : {"torch2onnx_compat", "torch2onnx_ops"}) {
    const auto line = r.out.find(std::string("  ") + name + "  ", at);
    ASSERT_NE(line, std::string::npos) << name << "\n" << r.out;
    const auto start = line + 4 + std::string(name).size();
    EXPECT_TRUE(fs::is_regular_file(r.out.substr(start, r.out.find('\n', start) - start))) << r.out;
  }
  const RunResult j = run({cli().string(), "plugins", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.describe();
  const auto libs = nlohmann::json::parse(j.out).at("kernel_libraries");
  std::vector<std::string> names;
  for (const auto& l : libs) names.push_back(l.at("name").get<std::string>());
  EXPECT_NE(std::find(names.begin(), names.end(), "torch2onnx_compat"), names.end()) << j.out;
}

TEST(WrongAbiPack, PluginsReportsItRefused) {
  const fs::path dir = bad_pack_dir();
  const RunResult r = run({cli().string(), "plugins", "--plugin-path", dir.string()});
  ASSERT_FALSE(r.crashed()) << r.describe();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find(kBadPack), std::string::npos) << "the refused pack should be named\n" << r.describe();
  EXPECT_NE(lower(all).find("refused"), std::string::npos) << "it should be reported as refused\n" << r.describe();
  EXPECT_NE(all.find(kReason), std::string::npos) << "the reason should be given\n" << r.describe();
}

TEST(WrongAbiPack, ExportSkipsItWithAWarning) {
  const fs::path dir = bad_pack_dir();
  const fs::path fx = fixture("tiny_cnn");
  const fs::path out_dir = fresh_out_dir();
  const fs::path out = out_dir / "tiny_cnn.onnx";
  std::vector<std::string> argv = {cli().string(), "export", (fx / "model.pt").string(), "-o", out.string(),
                                   "--plugin-path", dir.string()};
  const auto meta = read_meta(fx);
  for (const auto& s : meta.at("cli_inputs")) {
    argv.push_back("--input");
    argv.push_back(s.get<std::string>());
  }
  const RunResult r = run(argv);
  ASSERT_FALSE(r.crashed()) << r.describe();
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.err.find("torch2onnx: error: "), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find(kBadPack), std::string::npos) << "expected a warning naming the skipped pack\n"
                                                     << r.describe();
  EXPECT_NE(r.err.find(kReason), std::string::npos) << "expected the reason in the warning\n" << r.describe();
  ASSERT_TRUE(fs::is_regular_file(out)) << r.describe();

  const RunResult c = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(),
                           fx.string()});
  EXPECT_EQ(c.exit_code, 0) << c.describe();
}

}  // namespace
}  // namespace t2o_e2e

namespace t2o_e2e {
namespace {

// plugin.h: t2o_attr arrays are read with the stride of their first element's struct_size. A pack
// built for a later minor, whose t2o_attr has one more member, emits HardSigmoid(alpha, beta): both
// attributes must arrive, with their values, and the model must run.
TEST(AbiRules, AttributeArraysAreReadWithThePacksStride) {
  const fs::path fx = fixture("tiny_cnn");
  const fs::path out = fresh_out_dir() / "tiny_cnn.onnx";
  std::vector<std::string> argv = {cli().string(), "export", (fx / "model.pt").string(), "-o", out.string(),
                                   "--plugin-path", (plugin_root() / "wide_attr").string()};
  const auto meta = read_meta(fx);  // by value: iterating a member of a temporary would dangle
  for (const auto& s : meta.at("cli_inputs")) {
    argv.push_back("--input");
    argv.push_back(s.get<std::string>());
  }
  const RunResult r = run(argv);
  ASSERT_FALSE(r.crashed()) << r.describe();
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string bytes = file_bytes(out);
  EXPECT_NE(bytes.find("HardSigmoid"), std::string::npos);
  // AttributeProto: name "alpha"/"beta", then f (field 2, fixed32) = 0.25f / 0.75f.
  const float alpha = 0.25f, beta = 0.75f;
  std::string alpha_attr = std::string("\x0a\x05" "alpha\x15", 8) + std::string(reinterpret_cast<const char*>(&alpha), 4);
  std::string beta_attr = std::string("\x0a\x04" "beta\x15", 7) + std::string(reinterpret_cast<const char*>(&beta), 4);
  EXPECT_NE(bytes.find(alpha_attr), std::string::npos) << "alpha=0.25 missing";
  EXPECT_NE(bytes.find(beta_attr), std::string::npos) << "beta=0.75 missing (the second attribute read with the wrong stride)";
}

}  // namespace
}  // namespace t2o_e2e
