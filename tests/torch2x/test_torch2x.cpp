// Models saved by a real PyTorch 2.6 (issue 25): the committed fixtures of tests/torch2x/fixtures
// (make_fixtures.py, run in the PyTorch 2.6 root) exported by torch2onnx at each opset their case
// lists (one `export --batch` process), run in ONNX Runtime and compared with PyTorch 2.6's saved
// outputs (one `compare.js --batch` process); the ONNX node that replaces a decomposition (Attention,
// RMSNormalization) present from its opset on and absent below; the bad inputs refused in one line.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace t2o_e2e {
namespace {

fs::path fixtures_root() { return source_dir() / "tests" / "torch2x" / "fixtures"; }

nlohmann::json read_index() {
  std::ifstream f(fixtures_root() / "index.json");
  EXPECT_TRUE(f.good()) << "no " << (fixtures_root() / "index.json");
  return nlohmann::json::parse(f);
}

// The export words after `torch2onnx export` for a fixture at an opset.
std::vector<std::string> export_words(const fs::path& fx, const fs::path& out, int opset) {
  const auto meta = read_meta(fx);
  std::vector<std::string> args = {(fx / "model.pt").string(), "-o", out.string(), "--opset", std::to_string(opset)};
  for (const auto& spec : meta.at("cli_inputs")) {
    args.push_back("--input");
    args.push_back(spec.get<std::string>());
  }
  for (const auto& word : meta.value("export_args", nlohmann::json::array())) args.push_back(word.get<std::string>());
  return args;
}

// Every node type in the model, subgraphs included.
void collect_ops(const onnx::GraphProto& g, std::set<std::string>& ops) {
  for (const auto& n : g.node()) {
    ops.insert(n.op_type());
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_ops(a.g(), ops);
      for (const auto& sub : a.graphs()) collect_ops(sub, ops);
    }
  }
}

std::set<std::string> node_types(const fs::path& model) {
  onnx::ModelProto m;
  std::ifstream f(model, std::ios::binary);
  EXPECT_TRUE(m.ParseFromIstream(&f)) << model;
  std::set<std::string> ops;
  collect_ops(m.graph(), ops);
  return ops;
}

std::string sha256_of(const fs::path& file) {
  const RunResult r = run({"sha256sum", file.string()});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  return r.out.substr(0, r.out.find(' '));
}

TEST(Torch2x, FixturesAreCurrent) {
  const auto index = read_index();
  const fs::path generator = source_dir() / "tests" / "torch2x" / "make_fixtures.py";
  EXPECT_EQ(index.at("generator_sha256").get<std::string>(), sha256_of(generator))
      << "tests/torch2x/make_fixtures.py changed since the fixtures were made: regenerate them with\n"
         "  bash scripts/torch2x_env.sh run tests/torch2x/make_fixtures.py tests/torch2x/fixtures\n"
         "and commit tests/torch2x/fixtures";
  EXPECT_EQ(index.at("torch").get<std::string>().substr(0, 4), "2.6.");
  // Every fixture directory is a listed case, and the other way round.
  std::set<std::string> listed, present;
  for (const auto& c : index.at("cases")) listed.insert(c.at("name").get<std::string>());
  for (const auto& name : list_dir(fixtures_root()))
    if (fs::is_directory(fixtures_root() / name)) present.insert(name);
  EXPECT_EQ(listed, present);
}

TEST(Torch2x, ModelsMatchPyTorch26) {
  const auto index = read_index();
  const fs::path out_dir = fresh_out_dir();
  struct Job {
    std::string label, op;
    fs::path fixture, model;
    int opset, since;  // since: the native op's first opset, 0 = never expected
  };
  std::vector<Job> jobs;
  std::vector<std::vector<std::string>> exports;
  for (const auto& c : index.at("cases")) {
    if (c.at("kind") != "model") continue;
    const std::string name = c.at("name");
    for (int opset : c.at("opsets").get<std::vector<int>>()) {
      Job j;
      j.label = name + " at opset " + std::to_string(opset);
      j.fixture = fixtures_root() / name;
      j.model = out_dir / (name + "_" + std::to_string(opset) + ".onnx");
      j.opset = opset;
      j.since = 0;
      if (c.contains("native")) {
        j.op = c["native"].at("op").get<std::string>();
        j.since = c["native"].at("since").is_null() ? 0 : c["native"].at("since").get<int>();
      }
      exports.push_back(export_words(j.fixture, j.model, opset));
      jobs.push_back(j);
    }
  }
  ASSERT_FALSE(jobs.empty());
  const auto exported = export_batch(exports, out_dir / "export");
  std::vector<std::pair<fs::path, fs::path>> comparisons;
  std::vector<size_t> compared;
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (exported[k].exit_code != 0) {
      ADD_FAILURE() << jobs[k].label << ": export failed\n" << exported[k].describe(exports[k]);
      continue;
    }
    comparisons.push_back({jobs[k].model, jobs[k].fixture});
    compared.push_back(k);
  }
  const auto results = compare_batch(comparisons, out_dir / "compare");
  int matched = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const Job& j = jobs[compared[i]];
    if (results[i].exit_code != 0) {
      ADD_FAILURE() << j.label << ": ONNX Runtime's outputs differ from PyTorch 2.6's\n" << results[i].text;
      continue;
    }
    ++matched;
    if (j.op.empty()) continue;
    const bool expected = j.since > 0 && j.opset >= j.since;
    EXPECT_EQ(node_types(j.model).count(j.op), expected ? 1u : 0u)
        << j.label << ": " << j.op << (expected ? " missing" : " present, where the decomposition belongs");
  }
  std::cout << matched << " of " << jobs.size() << " exports of PyTorch 2.6 fixtures match PyTorch 2.6\n";
}

TEST(Torch2x, BadInputsAreOneLine) {
  const auto index = read_index();
  const fs::path out_dir = fresh_out_dir();
  int cases = 0;
  for (const auto& c : index.at("cases")) {
    if (c.at("kind") != "error") continue;
    const std::string name = c.at("name");
    const fs::path fx = fixtures_root() / name;
    // expect_error: a substring of the one line, or a list of them (any will do: the run or the
    // symbolic may be the one that refuses).
    std::vector<std::string> expect;
    const nlohmann::json e = read_meta(fx).at("expect_error");
    if (e.is_string()) expect.push_back(e.get<std::string>());
    else expect = e.get<std::vector<std::string>>();
    for (int opset : c.at("opsets").get<std::vector<int>>()) {
      const fs::path out = out_dir / (name + "_" + std::to_string(opset) + ".onnx");
      std::vector<std::string> argv = {cli().string(), "export"};
      for (const auto& w : export_words(fx, out, opset)) argv.push_back(w);
      const RunResult r = run(argv);
      const std::string label = name + " at opset " + std::to_string(opset);
      ++cases;
      EXPECT_EQ(r.exit_code, 1) << label << "\n" << r.describe();
      EXPECT_FALSE(r.crashed()) << label;
      const auto err = lines(r.err);
      ASSERT_EQ(err.size(), 1u) << label << ": expected one line\n" << r.describe();
      EXPECT_EQ(err[0].rfind("torch2onnx: error: ", 0), 0u) << label << ": " << err[0];
      bool named = false;
      for (const auto& part : expect) named = named || err[0].find(part) != std::string::npos;
      EXPECT_TRUE(named) << label << ": expected one of '" << nlohmann::json(expect).dump() << "' in: " << err[0];
      EXPECT_FALSE(fs::exists(out)) << label << ": an output file was written";
      std::cout << label << ": " << err[0] << "\n";
    }
  }
  EXPECT_GE(cases, 2);
}

}  // namespace
}  // namespace t2o_e2e
