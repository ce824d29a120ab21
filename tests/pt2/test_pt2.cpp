// Exported programs saved by a real PyTorch (torch.export.save, .pt2): the committed fixtures of
// tests/pt2/fixtures/torch<version> (make_fixtures.py, run in the PyTorch 2.6 and 2.14 roots of
// scripts/torch2x_env.sh) exported by torch2onnx at each opset their case lists (one `export --batch`
// process per version; no option but --opset: names, dtypes, shapes and dynamic dims come from the
// program), run in ONNX Runtime and compared with PyTorch's saved outputs at the example sizes and
// at every sizes<k>/ set (other sizes inside the range constraints; one `compare.js --batch`
// process); the damaged and foreign archives refused in one line.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <fstream>
#include <set>

namespace t2o_e2e {
namespace {

// The PyTorch versions with committed fixtures: directory name, torch.__version__ prefix.
const std::vector<std::pair<std::string, std::string>> kVersions = {{"torch2.6", "2.6."}, {"torch2.14", "2.14."}};

fs::path fixtures_root(const std::string& version) { return source_dir() / "tests" / "pt2" / "fixtures" / version; }

nlohmann::json read_index(const std::string& version) {
  const fs::path p = fixtures_root(version) / "index.json";
  std::ifstream f(p);
  if (!f.good()) {
    ADD_FAILURE() << "no " << p;
    return nlohmann::json::object({{"cases", nlohmann::json::array()}});
  }
  return nlohmann::json::parse(f);
}

std::string sha256_of(const fs::path& file) {
  const RunResult r = run({"sha256sum", file.string()});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  return r.out.substr(0, r.out.find(' '));
}

TEST(Pt2, FixturesAreCurrent) {
  const fs::path generator = source_dir() / "tests" / "pt2" / "make_fixtures.py";
  const std::string sha = sha256_of(generator);
  for (const auto& [version, prefix] : kVersions) {
    SCOPED_TRACE(version);
    const auto index = read_index(version);
    EXPECT_EQ(index.value("generator_sha256", ""), sha)
        << "tests/pt2/make_fixtures.py changed since the " << version << " fixtures were made: regenerate them with\n"
        << "  bash scripts/torch2x_env.sh run tests/pt2/make_fixtures.py tests/pt2/fixtures/torch2.6\n"
        << "  T2O_TORCH2X_SUITE=sid bash scripts/torch2x_env.sh run tests/pt2/make_fixtures.py "
           "tests/pt2/fixtures/torch2.14\n"
        << "and commit tests/pt2/fixtures";
    EXPECT_EQ(index.value("torch", "").rfind(prefix, 0), 0u) << "torch " << index.value("torch", "");
    // Every fixture directory is a listed case, and the other way round; every listed size set is there.
    std::set<std::string> listed, present;
    for (const auto& c : index.at("cases")) {
      const std::string name = c.at("name");
      listed.insert(name);
      EXPECT_TRUE(fs::exists(fixtures_root(version) / name / "model.pt2")) << name;
      EXPECT_TRUE(fs::exists(fixtures_root(version) / name / "meta.json")) << name;
      for (const auto& s : c.value("sizes", nlohmann::json::array()))
        EXPECT_TRUE(fs::exists(fixtures_root(version) / name / s.get<std::string>() / "meta.json")) << name << "/" << s;
    }
    for (const auto& name : list_dir(fixtures_root(version)))
      if (fs::is_directory(fixtures_root(version) / name)) present.insert(name);
    EXPECT_EQ(listed, present);
    for (const auto& s : index.value("skipped", nlohmann::json::array()))
      std::cout << version << ": skipped by the generator: " << s.at("name").get<std::string>() << ": "
                << s.at("reason").get<std::string>() << "\n";
  }
}

// Every model case of one version exported at each of its opsets and compared at every input set.
void models_match(const std::string& version) {
  const auto index = read_index(version);
  const fs::path root = fixtures_root(version);
  const fs::path out_dir = fresh_out_dir();
  struct Job {
    std::string label;
    fs::path fixture, model;
    std::vector<std::string> sizes;  // the sizes<k> dirs
  };
  std::vector<Job> jobs;
  std::vector<std::vector<std::string>> exports;
  for (const auto& c : index.at("cases")) {
    if (c.at("kind") != "model") continue;
    const std::string name = c.at("name");
    for (int opset : c.at("opsets").get<std::vector<int>>()) {
      Job j;
      j.label = version + "/" + name + " at opset " + std::to_string(opset);
      j.fixture = root / name;
      j.model = out_dir / (name + "_" + std::to_string(opset) + ".onnx");
      for (const auto& s : c.value("sizes", nlohmann::json::array())) j.sizes.push_back(s.get<std::string>());
      exports.push_back({(j.fixture / "model.pt2").string(), "-o", j.model.string(), "--opset", std::to_string(opset)});
      jobs.push_back(j);
    }
  }
  ASSERT_FALSE(jobs.empty()) << "no model cases in " << root;
  const auto exported = export_batch(exports, out_dir / "export");
  std::vector<std::pair<fs::path, fs::path>> comparisons;
  std::vector<std::pair<size_t, std::string>> compared;  // job, input set ("" = the example sizes)
  int exported_ok = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (exported[k].exit_code != 0) {
      ADD_FAILURE() << jobs[k].label << ": export failed\n" << exported[k].describe(exports[k]);
      continue;
    }
    ++exported_ok;
    comparisons.push_back({jobs[k].model, jobs[k].fixture});
    compared.push_back({k, ""});
    for (const auto& s : jobs[k].sizes) {
      comparisons.push_back({jobs[k].model, jobs[k].fixture / s});
      compared.push_back({k, s});
    }
  }
  const auto results = compare_batch(comparisons, out_dir / "compare");
  std::vector<bool> job_ok(jobs.size(), false);
  for (size_t k = 0; k < jobs.size(); ++k) job_ok[k] = exported[k].exit_code == 0;
  int sets_matched = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const Job& j = jobs[compared[i].first];
    if (results[i].exit_code != 0) {
      ADD_FAILURE() << j.label << (compared[i].second.empty() ? "" : " (" + compared[i].second + ")")
                    << ": ONNX Runtime's outputs differ from PyTorch's\n" << results[i].text;
      job_ok[compared[i].first] = false;
      continue;
    }
    ++sets_matched;
  }
  int matched = 0;
  for (bool ok : job_ok) matched += ok;
  std::cout << matched << " of " << jobs.size() << " exports of PyTorch " << version.substr(5)
            << " programs match PyTorch (" << exported_ok << " exported; " << sets_matched << " of "
            << comparisons.size() << " input sets match, other sizes included)\n";
}

TEST(Pt2, ModelsMatchPyTorch26) { models_match("torch2.6"); }
TEST(Pt2, ModelsMatchPyTorch214) { models_match("torch2.14"); }

TEST(Pt2, BadInputsAreOneLine) {
  const fs::path out_dir = fresh_out_dir();
  int cases = 0;
  for (const auto& [version, prefix] : kVersions) {
    const auto index = read_index(version);
    for (const auto& c : index.at("cases")) {
      if (c.at("kind") != "error") continue;
      const std::string name = c.at("name");
      const fs::path fx = fixtures_root(version) / name;
      // expect_error: a substring of the one line, or a list of them (any will do).
      std::vector<std::string> expect;
      const nlohmann::json e = read_meta(fx).at("expect_error");
      if (e.is_string()) expect.push_back(e.get<std::string>());
      else expect = e.get<std::vector<std::string>>();
      for (int opset : c.at("opsets").get<std::vector<int>>()) {
        const std::string label = version + "/" + name + " at opset " + std::to_string(opset);
        const fs::path out = out_dir / (version + "_" + name + "_" + std::to_string(opset) + ".onnx");
        const RunResult r = run({cli().string(), "export", (fx / "model.pt2").string(), "-o", out.string(), "--opset",
                                 std::to_string(opset)});
        ++cases;
        EXPECT_EQ(r.exit_code, 1) << label << "\n" << r.describe();
        EXPECT_FALSE(r.crashed()) << label;
        EXPECT_FALSE(fs::exists(out)) << label << ": an output file was written";
        const auto err = lines(r.err);
        if (err.size() != 1u) {
          ADD_FAILURE() << label << ": expected one line\n" << r.describe();
          continue;
        }
        EXPECT_EQ(err[0].rfind("torch2onnx: error: ", 0), 0u) << label << ": " << err[0];
        bool named = false;
        for (const auto& part : expect) named = named || err[0].find(part) != std::string::npos;
        EXPECT_TRUE(named) << label << ": expected one of " << nlohmann::json(expect).dump() << " in: " << err[0];
        std::cout << label << ": " << err[0] << "\n";
      }
    }
  }
  EXPECT_GE(cases, 8);
}

}  // namespace
}  // namespace t2o_e2e
