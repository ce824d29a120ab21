// Helpers for the end-to-end tests: run a program (no shell), generate fixtures, read meta.json.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace t2o_e2e {

namespace fs = std::filesystem;

struct RunResult {
  std::string command;  // for messages
  bool started = false;
  int exit_code = -1;   // valid when !signaled
  int signal = 0;       // the signal that killed it, 0 if none
  std::string out, err;

  bool crashed() const { return signal != 0 || exit_code >= 128 || exit_code < 0; }
  std::string describe() const;  // command, status, stdout and stderr, for failure messages
};

// Runs argv[0] (a path, or a name looked up on PATH) with stdin from /dev/null, capturing stdout and
// stderr. The environment is inherited.
RunResult run(const std::vector<std::string>& argv);

// Build-time configuration (compile definitions).
fs::path cli();             // the torch2onnx program
fs::path source_dir();
fs::path work_dir();        // <build>/e2e: fixtures/ and out/
fs::path fixtures_dir();    // <build>/e2e/fixtures
fs::path plugin_root();     // <build>/test_plugins (the deliberately broken packs)
std::string python();       // /usr/bin/python3 (Debian's, with torch)
std::string node();
// Whether the libtorch torch2onnx was built against is release MAJOR.MINOR or later, and its version
// ("1.13.1", "2.14.1"): for the few cases whose expected behaviour differs between releases.
bool libtorch_at_least(int major, int minor);
std::string libtorch_version();

// Generates fixture NAME with make_fixtures.py (reused when already there) and returns its directory.
// Fails the current test (fatal) if generation fails.
fs::path fixture(const std::string& name);
nlohmann::json read_meta(const fs::path& fixture_dir);

// A fresh, empty directory for one test's outputs: <build>/e2e/out/<test name>/.
fs::path fresh_out_dir();

// Many exports through one `torch2onnx export --batch` process (libtorch and the packs start once).
// args: the words after `torch2onnx export` (MODEL.pt -o OUT.onnx [options]); `shared`: options for
// every job (e.g. -q). One result per job, in order: exit_code as a single export would return it
// (0 written, 1 failed, 2 usage), `error` its one line, `warnings`. A job that crashes the process is
// reported as crashed (exit_code -1, with the process's stderr) and the batch goes on after it.
// The batch and report files go to `dir` (one test's own directory: no shared path).
struct ExportResult {
  int exit_code = -1;
  std::string error;
  std::vector<std::string> warnings;
  std::string describe(const std::vector<std::string>& args) const;  // for failure messages
};
std::vector<ExportResult> export_batch(const std::vector<std::vector<std::string>>& jobs, const fs::path& dir,
                                       const std::vector<std::string>& shared = {"-q"});

// Many comparisons in one node + ONNX Runtime (tests/ort/compare.js --batch, or another script with
// the same --batch form): one result per (model, fixture) pair, in order; exit_code as compare.js's
// (0 match, 1 mismatch, 2 ORT failed, 3 fixture problem; -1 when node crashed on it), text what it
// printed.
struct CompareResult {
  int exit_code = -1;
  std::string text;
};
std::vector<CompareResult> compare_batch(const std::vector<std::pair<fs::path, fs::path>>& jobs, const fs::path& dir,
                                         const fs::path& script = {});

// Lines of a text, without the trailing newline ("" -> no lines).
std::vector<std::string> lines(const std::string& text);
std::vector<std::string> list_dir(const fs::path& dir);  // entry names, sorted
std::string file_bytes(const fs::path& p);              // the whole file ("" if unreadable)

}  // namespace t2o_e2e
