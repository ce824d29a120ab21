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

// Generates fixture NAME with make_fixtures.py (reused when already there) and returns its directory.
// Fails the current test (fatal) if generation fails.
fs::path fixture(const std::string& name);
nlohmann::json read_meta(const fs::path& fixture_dir);

// A fresh, empty directory for one test's outputs: <build>/e2e/out/<test name>/.
fs::path fresh_out_dir();

// Lines of a text, without the trailing newline ("" -> no lines).
std::vector<std::string> lines(const std::string& text);
std::vector<std::string> list_dir(const fs::path& dir);  // entry names, sorted

}  // namespace t2o_e2e
