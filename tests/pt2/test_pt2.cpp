// Exported programs saved by a real PyTorch (torch.export.save, .pt2): the committed fixtures of
// tests/pt2/fixtures/torch<version> (make_fixtures.py, run in the PyTorch 2.6 and 2.14 roots of
// scripts/torch2x_env.sh) exported by torch2onnx at each opset their case lists (one `export --batch`
// process per version; no option but --opset: names, dtypes, shapes and dynamic dims come from the
// program), run in ONNX Runtime and compared with PyTorch's saved outputs at the example sizes and
// at every sizes<k>/ set (other sizes inside the range constraints; one `compare.js --batch`
// process); the damaged and foreign archives refused in one line.
// The same over tests/pt2/fixtures_world (make_world_fixtures.py, issue 42: torch.cond, while_loop,
// torch.onnx.ops, custom ops with a JSON pack, data-dependent sizes, pytrees, state written in forward,
// no_grad/autocast regions; map/scan and a custom op without its pack refused in one line naming the
// user's source line). A case listed with "known_failure" is run and reported but does not fail the
// test; one with "plugin_path" is exported with --plugin-path tests/pt2/<plugin_path>.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <onnx/onnx_pb.h>

#include <cctype>
#include <fstream>
#include <map>
#include <set>

namespace t2o_e2e {
namespace {

// The PyTorch versions with committed fixtures: directory name, torch.__version__ prefix.
const std::vector<std::pair<std::string, std::string>> kVersions = {{"torch2.6", "2.6."}, {"torch2.14", "2.14."}};

// The fixture sets: make_fixtures.py's and make_world_fixtures.py's.
const std::string kBasic = "fixtures";
const std::string kWorld = "fixtures_world";

fs::path fixtures_root(const std::string& version, const std::string& set = kBasic) {
  return source_dir() / "tests" / "pt2" / set / version;
}

nlohmann::json read_index(const std::string& version, const std::string& set = kBasic) {
  const fs::path p = fixtures_root(version, set) / "index.json";
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

void fixtures_are_current(const std::string& set, const std::string& generator_name) {
  const fs::path generator = source_dir() / "tests" / "pt2" / generator_name;
  const std::string sha = sha256_of(generator);
  for (const auto& [version, prefix] : kVersions) {
    SCOPED_TRACE(set + "/" + version);
    const auto index = read_index(version, set);
    const fs::path root = fixtures_root(version, set);
    EXPECT_EQ(index.value("generator_sha256", ""), sha)
        << "tests/pt2/" << generator_name << " changed since the " << version
        << " fixtures were made: regenerate them with\n"
        << "  bash scripts/torch2x_env.sh run tests/pt2/" << generator_name << " tests/pt2/" << set << "/torch2.6\n"
        << "  T2O_TORCH2X_SUITE=sid bash scripts/torch2x_env.sh run tests/pt2/" << generator_name << " tests/pt2/"
        << set << "/torch2.14\n"
        << "and commit tests/pt2/" << set;
    EXPECT_EQ(index.value("torch", "").rfind(prefix, 0), 0u) << "torch " << index.value("torch", "");
    // Every fixture directory is a listed case, and the other way round; every listed size set is there.
    std::set<std::string> listed, present;
    for (const auto& c : index.at("cases")) {
      const std::string name = c.at("name");
      listed.insert(name);
      EXPECT_TRUE(fs::exists(root / name / "model.pt2")) << name;
      EXPECT_TRUE(fs::exists(root / name / "meta.json")) << name;
      for (const auto& s : c.value("sizes", nlohmann::json::array()))
        EXPECT_TRUE(fs::exists(root / name / s.get<std::string>() / "meta.json")) << name << "/" << s;
      if (c.contains("plugin_path"))
        EXPECT_TRUE(fs::is_directory(source_dir() / "tests" / "pt2" / c.at("plugin_path").get<std::string>()))
            << name << ": no pack directory tests/pt2/" << c.at("plugin_path").get<std::string>();
    }
    for (const auto& name : list_dir(root))
      if (fs::is_directory(root / name)) present.insert(name);
    EXPECT_EQ(listed, present);
    for (const auto& s : index.value("skipped", nlohmann::json::array()))
      std::cout << set << "/" << version << ": skipped by the generator: " << s.at("name").get<std::string>() << ": "
                << s.at("reason").get<std::string>() << "\n";
  }
}

TEST(Pt2, FixturesAreCurrent) { fixtures_are_current(kBasic, "make_fixtures.py"); }
TEST(Pt2, WorldFixturesAreCurrent) { fixtures_are_current(kWorld, "make_world_fixtures.py"); }

// The shapes the model declares against one input set's: each input's dim_params bound to the set's
// input sizes, then every output's rank, fixed dims and bound dim_params checked against PyTorch's
// output shapes (ONNX Runtime does not check declared output shapes; a dim named after an input's
// where the size is another, e.g. a nonzero count called the batch size, is found here).
std::vector<std::string> declared_shape_problems(const fs::path& model, const fs::path& set_dir) {
  std::vector<std::string> problems;
  onnx::ModelProto m;
  std::ifstream f(model, std::ios::binary);
  if (!m.ParseFromIstream(&f)) return {"cannot read " + model.string()};
  const nlohmann::json meta = read_meta(set_dir);
  const auto& ins = meta.at("inputs");
  const auto& outs = meta.at("outputs");
  std::set<std::string> initializers;
  for (const auto& t : m.graph().initializer()) initializers.insert(t.name());
  std::vector<const onnx::ValueInfoProto*> graph_inputs;
  for (const auto& v : m.graph().input())
    if (!initializers.count(v.name())) graph_inputs.push_back(&v);
  if (graph_inputs.size() != ins.size() || static_cast<size_t>(m.graph().output_size()) != outs.size())
    return {std::to_string(graph_inputs.size()) + " inputs and " + std::to_string(m.graph().output_size()) +
            " outputs for the fixture's " + std::to_string(ins.size()) + " and " + std::to_string(outs.size())};
  std::map<std::string, int64_t> bound;
  for (size_t i = 0; i < ins.size(); ++i) {
    const auto shape = ins[i].at("shape").get<std::vector<int64_t>>();
    const auto& dims = graph_inputs[i]->type().tensor_type().shape().dim();
    if (static_cast<size_t>(dims.size()) != shape.size()) continue;  // reported by ONNX Runtime
    for (int d = 0; d < dims.size(); ++d)
      if (dims[d].has_dim_param()) bound.emplace(dims[d].dim_param(), shape[d]);
  }
  for (size_t o = 0; o < outs.size(); ++o) {
    const auto& out = m.graph().output(static_cast<int>(o));
    if (!out.type().tensor_type().has_shape()) continue;
    const auto shape = outs[o].at("shape").get<std::vector<int64_t>>();
    const auto& dims = out.type().tensor_type().shape().dim();
    auto where = [&](int d) { return "output " + std::to_string(o) + " '" + out.name() + "' dim " + std::to_string(d); };
    if (static_cast<size_t>(dims.size()) != shape.size()) {
      problems.push_back("output " + std::to_string(o) + " '" + out.name() + "' declared of rank " +
                         std::to_string(dims.size()) + ", PyTorch's is of rank " + std::to_string(shape.size()));
      continue;
    }
    for (int d = 0; d < dims.size(); ++d) {
      if (dims[d].has_dim_value() && dims[d].dim_value() != shape[d])
        problems.push_back(where(d) + " declared " + std::to_string(dims[d].dim_value()) + ", PyTorch's is " +
                           std::to_string(shape[d]));
      if (dims[d].has_dim_param()) {
        auto it = bound.find(dims[d].dim_param());
        if (it != bound.end() && it->second != shape[d])
          problems.push_back(where(d) + " declared '" + dims[d].dim_param() + "' (" + std::to_string(it->second) +
                             " here, an input's size), PyTorch's is " + std::to_string(shape[d]));
      }
    }
  }
  return problems;
}

// The model's declared output dims against the program's recorded ones (output_dims in the index:
// ints, and symbols as text): a fixed size declared fixed; an input's symbol (s77) declared as that
// dim_param when the inputs have it; an unbacked size (u0) a dim_param of its own, one per symbol,
// no input's; expressions (2*s77) not checked.
std::vector<std::string> output_dims_problems(const fs::path& model, const nlohmann::json& recorded) {
  onnx::ModelProto m;
  std::ifstream f(model, std::ios::binary);
  if (!m.ParseFromIstream(&f)) return {"cannot read " + model.string()};
  std::set<std::string> input_params;
  for (const auto& v : m.graph().input())
    for (const auto& d : v.type().tensor_type().shape().dim())
      if (d.has_dim_param()) input_params.insert(d.dim_param());
  if (static_cast<size_t>(m.graph().output_size()) != recorded.size())
    return {std::to_string(m.graph().output_size()) + " outputs for the program's " + std::to_string(recorded.size())};
  auto is_symbol = [](const std::string& t, char first) {
    if (t.size() < 2 || t[0] != first) return false;
    for (size_t i = 1; i < t.size(); ++i)
      if (!std::isdigit(static_cast<unsigned char>(t[i]))) return false;
    return true;
  };
  std::vector<std::string> problems;
  std::map<std::string, std::string> unbacked;  // u0 -> its dim_param
  for (size_t o = 0; o < recorded.size(); ++o) {
    if (recorded[o].is_null()) continue;
    const auto& out = m.graph().output(static_cast<int>(o));
    const auto& dims = out.type().tensor_type().shape().dim();
    const std::string what = "output " + std::to_string(o) + " '" + out.name() + "'";
    if (static_cast<size_t>(dims.size()) != recorded[o].size()) {
      problems.push_back(what + " declared of rank " + std::to_string(dims.size()) + ", the program's " +
                         recorded[o].dump());
      continue;
    }
    for (int d = 0; d < dims.size(); ++d) {
      const auto& want = recorded[o][static_cast<size_t>(d)];
      const std::string got = dims[d].has_dim_value() ? std::to_string(dims[d].dim_value())
                              : dims[d].has_dim_param() ? "'" + dims[d].dim_param() + "'" : "?";
      const std::string here = what + " dim " + std::to_string(d) + ": declared " + got + ", the program's " + want.dump();
      if (want.is_number_integer()) {
        if (!dims[d].has_dim_value() || dims[d].dim_value() != want.get<int64_t>()) problems.push_back(here);
        continue;
      }
      const std::string sym = want.get<std::string>();
      if (is_symbol(sym, 's') && input_params.count(sym)) {
        if (!dims[d].has_dim_param() || dims[d].dim_param() != sym) problems.push_back(here);
      } else if (is_symbol(sym, 'u')) {
        if (!dims[d].has_dim_param() || input_params.count(dims[d].dim_param())) {
          problems.push_back(here);
          continue;
        }
        auto [it, fresh] = unbacked.emplace(sym, dims[d].dim_param());
        if (!fresh && it->second != dims[d].dim_param())
          problems.push_back(here + " (" + sym + " is also '" + it->second + "')");
      }
    }
  }
  return problems;
}

// Every model case of one version exported at each of its opsets and compared at every input set.
void models_match(const std::string& version, const std::string& set = kBasic, bool check_declared_shapes = false) {
  const auto index = read_index(version, set);
  const fs::path root = fixtures_root(version, set);
  const fs::path out_dir = fresh_out_dir();
  struct Job {
    std::string label;
    fs::path fixture, model;
    std::vector<std::string> sizes;  // the sizes<k> dirs
    std::string known_failure;       // why it fails today: reported, not a test failure
    std::string plugin_path;         // a pack directory under tests/pt2 ("" = none)
    std::vector<std::string> state_outputs;  // the names of the last outputs: the state the program writes
    nlohmann::json output_dims;              // the program's recorded output shapes (null: not checked)
    std::string known_dims_failure;          // why the declared dims differ today: reported, not a failure
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
      j.known_failure = c.value("known_failure", "");
      j.plugin_path = c.value("plugin_path", "");
      if (c.contains("state_outputs")) j.state_outputs = c.at("state_outputs").get<std::vector<std::string>>();
      j.output_dims = c.value("output_dims", nlohmann::json());
      j.known_dims_failure = c.value("known_dims_failure", "");
      exports.push_back({(j.fixture / "model.pt2").string(), "-o", j.model.string(), "--opset", std::to_string(opset)});
      jobs.push_back(j);
    }
  }
  ASSERT_FALSE(jobs.empty()) << "no model cases in " << root;
  // One `export --batch` per pack directory (--plugin-path applies to a whole batch).
  std::vector<ExportResult> exported(jobs.size());
  std::set<std::string> packs;
  for (const auto& j : jobs) packs.insert(j.plugin_path);
  for (const auto& pack : packs) {
    std::vector<size_t> which;
    std::vector<std::vector<std::string>> batch;
    for (size_t k = 0; k < jobs.size(); ++k)
      if (jobs[k].plugin_path == pack) {
        which.push_back(k);
        batch.push_back(exports[k]);
      }
    std::vector<std::string> shared = {"-q"};
    if (!pack.empty()) {
      shared.push_back("--plugin-path");
      shared.push_back((source_dir() / "tests" / "pt2" / pack).string());
    }
    const auto results = export_batch(batch, out_dir / ("export" + (pack.empty() ? "" : "_" + pack)), shared);
    for (size_t i = 0; i < which.size(); ++i) {
      exported[which[i]] = results[i];
      // the command as one export would be, for the messages
      exports[which[i]].insert(exports[which[i]].end(), shared.begin() + 1, shared.end());
    }
  }
  std::vector<std::pair<fs::path, fs::path>> comparisons;
  std::vector<std::pair<size_t, std::string>> compared;  // job, input set ("" = the example sizes)
  int exported_ok = 0;
  // A known failure is reported on stdout; anything else fails the test.
  auto report = [&](const Job& j, const std::string& text) {
    if (j.known_failure.empty()) ADD_FAILURE() << text;
    else std::cout << "known failure (" << j.known_failure << "): " << text << "\n";
  };
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (exported[k].exit_code != 0) {
      report(jobs[k], jobs[k].label + ": export failed\n" + exported[k].describe(exports[k]));
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
      report(j, j.label + (compared[i].second.empty() ? "" : " (" + compared[i].second + ")") +
                    ": ONNX Runtime's outputs differ from PyTorch's\n" + results[i].text);
      job_ok[compared[i].first] = false;
      continue;
    }
    ++sets_matched;
  }
  if (check_declared_shapes)
    for (size_t i = 0; i < comparisons.size(); ++i) {
      const auto problems = declared_shape_problems(comparisons[i].first, comparisons[i].second);
      if (problems.empty()) continue;
      const Job& j = jobs[compared[i].first];
      report(j, j.label + (compared[i].second.empty() ? "" : " (" + compared[i].second + ")") +
                    ": the model's declared shapes disagree with PyTorch's: " + nlohmann::json(problems).dump());
      job_ok[compared[i].first] = false;
    }
  // The state a program writes: its last outputs, named NAME.updated.
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (jobs[k].state_outputs.empty() || exported[k].exit_code != 0) continue;
    onnx::ModelProto m;
    std::ifstream f(jobs[k].model, std::ios::binary);
    std::vector<std::string> names;
    if (m.ParseFromIstream(&f))
      for (const auto& o : m.graph().output()) names.push_back(o.name());
    const size_t n = jobs[k].state_outputs.size();
    const std::vector<std::string> last(names.size() >= n ? names.end() - static_cast<long>(n) : names.begin(), names.end());
    if (last != jobs[k].state_outputs) {
      report(jobs[k], jobs[k].label + ": outputs " + nlohmann::json(names).dump() + ", expected to end with " +
                          nlohmann::json(jobs[k].state_outputs).dump());
      job_ok[k] = false;
    }
  }
  // The declared output dims against the program's (a separate known-failure list: values may match).
  int dims_ok = 0, dims_checked = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (!check_declared_shapes || jobs[k].output_dims.is_null() || exported[k].exit_code != 0) continue;
    ++dims_checked;
    const auto problems = output_dims_problems(jobs[k].model, jobs[k].output_dims);
    if (problems.empty()) {
      ++dims_ok;
      if (!jobs[k].known_dims_failure.empty())
        std::cout << jobs[k].label << ": listed as a known dims failure (" << jobs[k].known_dims_failure
                  << ") but its dims now agree: drop it from KNOWN_DIMS_FAILURES in the generator\n";
      continue;
    }
    const std::string text = jobs[k].label + ": declared output dims differ from the program's: " +
                             nlohmann::json(problems).dump();
    if (!jobs[k].known_failure.empty() || !jobs[k].known_dims_failure.empty())
      std::cout << "known dims failure ("
                << (jobs[k].known_dims_failure.empty() ? jobs[k].known_failure : jobs[k].known_dims_failure)
                << "): " << text << "\n";
    else
      ADD_FAILURE() << text;
  }
  if (dims_checked)
    std::cout << dims_ok << " of " << dims_checked << " exports declare the program's output dims\n";
  int matched = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    matched += job_ok[k];
    if (job_ok[k] && !jobs[k].known_failure.empty())
      std::cout << jobs[k].label << ": listed as a known failure (" << jobs[k].known_failure
                << ") but now matches: drop it from KNOWN_FAILURES in the generator\n";
  }
  std::cout << matched << " of " << jobs.size() << " exports of PyTorch " << version.substr(5) << " programs ("
            << set << ") match PyTorch (" << exported_ok << " exported; " << sets_matched << " of "
            << comparisons.size() << " input sets match, other sizes included)\n";
}

TEST(Pt2, ModelsMatchPyTorch26) { models_match("torch2.6"); }
TEST(Pt2, ModelsMatchPyTorch214) { models_match("torch2.14"); }
TEST(Pt2, WorldMatchesPyTorch26) { models_match("torch2.6", kWorld, true); }
TEST(Pt2, WorldMatchesPyTorch214) { models_match("torch2.14", kWorld, true); }

// Every error case of a fixture set: exit 1, one stderr line `torch2onnx: error: ...` holding one of
// expect_error's texts and all of expect_all's, no output file. Returns the number of exports run.
int bad_inputs_are_one_line(const std::string& set) {
  const fs::path out_dir = fresh_out_dir();
  int cases = 0;
  for (const auto& [version, prefix] : kVersions) {
    const auto index = read_index(version, set);
    for (const auto& c : index.at("cases")) {
      if (c.at("kind") != "error") continue;
      const std::string name = c.at("name");
      const fs::path fx = fixtures_root(version, set) / name;
      const std::string known = c.value("known_failure", "");
      // expect_error: a substring of the one line, or a list of them (any will do).
      std::vector<std::string> expect, expect_all;
      const nlohmann::json meta = read_meta(fx);
      const nlohmann::json e = meta.at("expect_error");
      if (e.is_string()) expect.push_back(e.get<std::string>());
      else expect = e.get<std::vector<std::string>>();
      if (meta.contains("expect_all")) expect_all = meta.at("expect_all").get<std::vector<std::string>>();
      for (int opset : c.at("opsets").get<std::vector<int>>()) {
        const std::string label = set + "/" + version + "/" + name + " at opset " + std::to_string(opset);
        const fs::path out = out_dir / (version + "_" + name + "_" + std::to_string(opset) + ".onnx");
        const RunResult r = run({cli().string(), "export", (fx / "model.pt2").string(), "-o", out.string(), "--opset",
                                 std::to_string(opset)});
        ++cases;
        std::vector<std::string> problems;
        if (r.exit_code != 1) problems.push_back("exit code " + std::to_string(r.exit_code));
        if (r.crashed()) problems.push_back("crashed");
        if (fs::exists(out)) problems.push_back("an output file was written");
        const auto err = lines(r.err);
        if (err.size() != 1u) {
          problems.push_back("expected one line");
        } else {
          if (err[0].rfind("torch2onnx: error: ", 0) != 0) problems.push_back("not `torch2onnx: error: ...`");
          bool named = false;
          for (const auto& part : expect) named = named || err[0].find(part) != std::string::npos;
          if (!named) problems.push_back("expected one of " + nlohmann::json(expect).dump());
          for (const auto& part : expect_all)
            if (err[0].find(part) == std::string::npos) problems.push_back("expected " + nlohmann::json(part).dump());
        }
        if (problems.empty()) {
          std::cout << label << ": " << err[0] << (known.empty() ? "" : "  (listed as a known failure: now passes)")
                    << "\n";
          continue;
        }
        std::string text = label + ": " + nlohmann::json(problems).dump() + "\n" + r.describe();
        if (known.empty()) ADD_FAILURE() << text;
        else std::cout << "known failure (" << known << "): " << text << "\n";
      }
    }
  }
  return cases;
}

// `torch2onnx check` on the world's error cases that say what it must list (check_lists in meta.json):
// exit 1, every text on stdout or stderr (the unconvertible op and the user's source line).
TEST(Pt2, WorldCheckListsUnconvertible) {
  int cases = 0;
  for (const auto& [version, prefix] : kVersions) {
    const auto index = read_index(version, kWorld);
    for (const auto& c : index.at("cases")) {
      if (c.at("kind") != "error") continue;
      const fs::path fx = fixtures_root(version, kWorld) / c.at("name").get<std::string>();
      const nlohmann::json meta = read_meta(fx);
      if (!meta.contains("check_lists")) continue;
      const std::string label = version + "/" + c.at("name").get<std::string>();
      const RunResult r = run({cli().string(), "check", (fx / "model.pt2").string()});
      ++cases;
      EXPECT_EQ(r.exit_code, 1) << label << "\n" << r.describe();
      EXPECT_FALSE(r.crashed()) << label;
      for (const auto& part : meta.at("check_lists").get<std::vector<std::string>>())
        EXPECT_NE((r.out + r.err).find(part), std::string::npos) << label << ": expected " << part << "\n" << r.describe();
    }
  }
  EXPECT_GE(cases, 2);
}

TEST(Pt2, BadInputsAreOneLine) { EXPECT_GE(bad_inputs_are_one_line(kBasic), 8); }
TEST(Pt2, WorldBadInputsAreOneLine) { EXPECT_GE(bad_inputs_are_one_line(kWorld), 3); }

}  // namespace
}  // namespace t2o_e2e
