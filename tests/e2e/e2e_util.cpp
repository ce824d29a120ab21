#include "e2e_util.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include <gtest/gtest.h>

namespace t2o_e2e {

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string quote(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t\"'\\$`*?[]{}()<>|&;") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : fallback;
}

}  // namespace

std::string RunResult::describe() const {
  std::ostringstream ss;
  ss << "command: " << command << "\n";
  if (!started) ss << "status: could not start\n";
  else if (signal) ss << "status: killed by signal " << signal << " (" << strsignal(signal) << ")\n";
  else ss << "status: exit " << exit_code << "\n";
  ss << "--- stdout ---\n" << out << (out.empty() || out.back() == '\n' ? "" : "\n");
  ss << "--- stderr ---\n" << err << (err.empty() || err.back() == '\n' ? "" : "\n");
  return ss.str();
}

RunResult run(const std::vector<std::string>& argv) {
  RunResult r;
  for (const auto& a : argv) r.command += (r.command.empty() ? "" : " ") + quote(a);
  if (argv.empty()) return r;

  const fs::path tmp_dir = work_dir() / "tmp";
  fs::create_directories(tmp_dir);
  std::string out_tpl = (tmp_dir / "out.XXXXXX").string(), err_tpl = (tmp_dir / "err.XXXXXX").string();
  const int out_fd = mkstemp(out_tpl.data());
  const int err_fd = mkstemp(err_tpl.data());
  if (out_fd < 0 || err_fd < 0) {
    r.err = std::string("mkstemp failed: ") + std::strerror(errno);
    return r;
  }

  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  const pid_t pid = fork();
  if (pid == 0) {
    const int in_fd = open("/dev/null", O_RDONLY);
    if (in_fd >= 0) dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    execvp(cargv[0], cargv.data());
    const std::string msg = std::string("exec ") + cargv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(2, msg.data(), msg.size());
    _exit(127);
  }
  close(out_fd);
  close(err_fd);
  if (pid > 0) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.started = true;
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    else if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  }
  r.out = read_file(out_tpl);
  r.err = read_file(err_tpl);
  std::error_code ec;
  fs::remove(out_tpl, ec);
  fs::remove(err_tpl, ec);
  return r;
}

fs::path cli() { return env_or("T2O_CLI", T2O_CLI); }
fs::path source_dir() { return T2O_SOURCE_DIR; }
fs::path work_dir() { return fs::path(T2O_BINARY_DIR) / "e2e"; }
fs::path fixtures_dir() { return work_dir() / "fixtures"; }
fs::path plugin_root() { return T2O_TEST_PLUGIN_ROOT; }
std::string python() { return env_or("T2O_PYTHON", T2O_PYTHON); }
std::string node() { return env_or("T2O_NODE", T2O_NODE); }

#ifndef T2O_E2E_LIBTORCH_VERSION
#define T2O_E2E_LIBTORCH_VERSION "1.13.1"
#endif
std::string libtorch_version() { return T2O_E2E_LIBTORCH_VERSION; }

bool libtorch_at_least(int major, int minor) {
  int have_major = 0, have_minor = 0;
  if (std::sscanf(T2O_E2E_LIBTORCH_VERSION, "%d.%d", &have_major, &have_minor) != 2) return false;
  return have_major > major || (have_major == major && have_minor >= minor);
}

fs::path fixture(const std::string& name) {
  const fs::path dir = fixtures_dir() / name;
  const RunResult r =
      run({python(), (source_dir() / "tests" / "fixtures" / "make_fixtures.py").string(), fixtures_dir().string(),
           name});
  if (r.crashed() || r.exit_code != 0) {
    ADD_FAILURE() << "fixture generation failed for '" << name << "'\n" << r.describe();
    throw std::runtime_error("fixture generation failed");  // caught by gtest: the test fails
  }
  return dir;
}

nlohmann::json read_meta(const fs::path& fixture_dir) {
  std::ifstream in(fixture_dir / "meta.json");
  if (!in) throw std::runtime_error("cannot read " + (fixture_dir / "meta.json").string());
  return nlohmann::json::parse(in);
}

fs::path fresh_out_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "." + info->name();
  // The quick slices run the same gtest cases as their suites: their own directory (T2O_TEST_NAME,
  // tests/CMakeLists.txt), so a run that holds both never shares one.
  if (const char* entry = std::getenv("T2O_TEST_NAME"); entry && std::string(entry).rfind("quick.", 0) == 0)
    name = std::string(entry) + "." + name;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  const fs::path dir = work_dir() / "out" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

namespace {

// A batch-file word: quoted unless it is plain (tools/batch_file.hpp's rules).
std::string batch_word(const std::string& w) {
  if (!w.empty() && w.find_first_of(" \t'\"\\#") == std::string::npos) return w;
  std::string q = "'";
  for (char c : w) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::vector<nlohmann::json> read_json_lines(const fs::path& p) {
  std::vector<nlohmann::json> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false));
  return out;
}

}  // namespace

std::string ExportResult::describe(const std::vector<std::string>& args) const {
  std::string cmd = "torch2onnx export";
  for (const auto& a : args) cmd += " " + quote(a);
  std::string text = "command: " + cmd + "\nexit " + std::to_string(exit_code) + ": " + error + "\n";
  for (const auto& w : warnings) text += "warning: " + w + "\n";
  return text;
}

std::vector<ExportResult> export_batch(const std::vector<std::vector<std::string>>& jobs, const fs::path& dir,
                                       const std::vector<std::string>& shared) {
  std::vector<ExportResult> results(jobs.size());
  fs::create_directories(dir);
  size_t next = 0;
  bool alone = false;  // the next attempt runs the first unreported job by itself
  for (int attempt = 0; next < jobs.size(); ++attempt) {
    const fs::path batch = dir / ("batch_" + std::to_string(attempt) + ".txt");
    const fs::path report = dir / ("batch_" + std::to_string(attempt) + ".jsonl");
    const size_t end = alone ? next + 1 : jobs.size();
    {
      std::ofstream out(batch);
      for (size_t k = next; k < end; ++k) {
        for (size_t i = 0; i < jobs[k].size(); ++i) out << (i ? " " : "") << batch_word(jobs[k][i]);
        out << "\n";
      }
    }
    std::vector<std::string> argv = {cli().string(), "export", "--batch", batch.string(), "--batch-report",
                                     report.string()};
    argv.insert(argv.end(), shared.begin(), shared.end());
    const RunResult r = run(argv);
    size_t done = 0;
    for (const auto& entry : read_json_lines(report)) {
      if (entry.is_discarded() || next + done >= jobs.size()) break;
      ExportResult& res = results[next + done];
      res.exit_code = entry.value("exit_code", -1);
      res.error = entry.value("error", "");
      for (const auto& w : entry.value("warnings", nlohmann::json::array())) res.warnings.push_back(w.get<std::string>());
      ++done;
    }
    next += done;
    if (next >= jobs.size()) break;
    const bool was_alone = alone;
    alone = false;
    if (was_alone && done > 0) continue;
    // The process ended before this job's report line. A usage mistake of the batch as a whole:
    // every remaining job fails with it.
    if (!was_alone && !r.crashed() && r.exit_code == 2 && done == 0) {
      results[next].exit_code = -1;
      results[next].error = "the batch process ended on this job: " + r.describe();
      for (size_t k = next; k < jobs.size(); ++k) results[k] = results[next];
      break;
    }
    // Otherwise it crashed. A job's line comes once its files are written, which happens while the
    // next job converts: the crash may be the next job's. This one runs alone first.
    if (!was_alone) {
      alone = true;
      continue;
    }
    results[next].exit_code = -1;
    results[next].error = "the batch process ended on this job: " + r.describe();
    ++next;
  }
  return results;
}

std::vector<CompareResult> compare_batch(const std::vector<std::pair<fs::path, fs::path>>& jobs, const fs::path& dir,
                                         const fs::path& script) {
  const fs::path compare = script.empty() ? source_dir() / "tests" / "ort" / "compare.js" : script;
  std::vector<CompareResult> results(jobs.size());
  fs::create_directories(dir);
  size_t next = 0;
  for (int attempt = 0; next < jobs.size(); ++attempt) {
    const fs::path job_file = dir / ("compare_" + std::to_string(attempt) + ".json");
    const fs::path report = dir / ("compare_" + std::to_string(attempt) + ".jsonl");
    nlohmann::json list = nlohmann::json::array();
    for (size_t k = next; k < jobs.size(); ++k)
      list.push_back({{"model", jobs[k].first.string()}, {"fixture", jobs[k].second.string()}});
    std::ofstream(job_file) << list.dump();
    const RunResult r = run({node(), compare.string(), "--batch", job_file.string(), report.string()});
    size_t done = 0;
    for (const auto& entry : read_json_lines(report)) {
      if (entry.is_discarded() || next + done >= jobs.size()) break;
      results[next + done].exit_code = entry.value("code", -1);
      results[next + done].text = entry.value("text", "");
      ++done;
    }
    next += done;
    if (next >= jobs.size()) break;
    results[next].exit_code = -1;
    results[next].text = "node ended on this comparison: " + r.describe();
    if (!r.crashed() && r.exit_code == 3 && done == 0) {
      for (size_t k = next; k < jobs.size(); ++k) results[k] = results[next];
      break;
    }
    ++next;
  }
  return results;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      v.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) v.push_back(cur);
  return v;
}

std::vector<std::string> list_dir(const fs::path& dir) {
  std::vector<std::string> v;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace t2o_e2e
