// The program's start-up (issue 26): the launcher (tools/launcher.cpp) answers --version and the help
// texts without loading the command library, so without libtorch, and gives the texts the commands
// give; --timings names each phase of the start-up, ours and libtorch's.
#include "e2e_util.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

namespace {

using namespace t2o_e2e;

const std::vector<std::string> kCommands = {"export", "check", "plugins", "decompose", "verify", "show"};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::string> with(const fs::path& program, std::vector<std::string> words) {
  words.insert(words.begin(), program.string());
  return words;
}

// A copy of the program alone in bin/ of this test's directory: there is no ../lib beside it, so no
// command library (and no libtorch) it could load.
fs::path lone_program() {
  const fs::path bin = fresh_out_dir() / "bin";
  fs::create_directories(bin);
  fs::copy_file(cli(), bin / "torch2onnx");
  return bin / "torch2onnx";
}

TEST(Launcher, AnswersVersionAndHelpWithoutTheCommandLibrary) {
  const fs::path lone = lone_program();
  std::vector<std::vector<std::string>> forms = {{"--version"}, {"--help"}, {"-h"}, {"help"}, {"--verbose", "--help"}};
  for (const auto& command : kCommands) {
    forms.push_back({command, "--help"});
    forms.push_back({command, "-h"});
    forms.push_back({"help", command});
  }
  for (const auto& words : forms) {
    const RunResult alone = run(with(lone, words));
    const RunResult full = run(with(cli(), words));
    EXPECT_EQ(alone.exit_code, 0) << alone.describe();
    EXPECT_EQ(alone.err, "") << alone.describe();
    EXPECT_EQ(alone.out, full.out) << alone.describe() << full.describe();
    EXPECT_FALSE(alone.out.empty()) << alone.describe();
  }
  EXPECT_EQ(run(with(lone, {"export", "--help"})).out.rfind("usage: torch2onnx export ", 0), 0u);
  EXPECT_EQ(run(with(lone, {"help", "verify"})).out.rfind("usage: torch2onnx verify ", 0), 0u);

  // No words: the usage on stderr, exit status 2, as before.
  const RunResult none = run({lone.string()});
  EXPECT_EQ(none.exit_code, 2) << none.describe();
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(none.err.rfind("usage: torch2onnx <command>", 0), 0u) << none.describe();

  // A real command needs the command library: one line naming it, exit status 1, no crash.
  const RunResult real = run(with(lone, {"plugins"}));
  EXPECT_EQ(real.exit_code, 1) << real.describe();
  const auto err = lines(real.err);
  ASSERT_EQ(err.size(), 1u) << real.describe();
  EXPECT_EQ(err[0].rfind("torch2onnx: error: cannot load the command library ", 0), 0u) << err[0];
  EXPECT_TRUE(contains(err[0], "libtorch2onnx_cli.so")) << err[0];
}

TEST(Launcher, CommandLibraryGivesTheSameTexts) {
  // Command lines the launcher leaves to the command library, which parses them whole: an option
  // before --help.
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> same = {
      {{"export", "--help"}, {"export", "--opset", "17", "--help"}},
      {{"check", "--help"}, {"check", "--json", "--help"}},
      {{"verify", "--help"}, {"verify", "--runs", "2", "--help"}},
      {{"plugins", "--help"}, {"plugins", "--json", "--help"}},
      {{"decompose", "--help"}, {"decompose", "-q", "--help"}},
      {{"show", "--help"}, {"show", "model.onnx", "--help"}},
  };
  for (const auto& [launcher_words, library_words] : same) {
    const RunResult launcher = run(with(cli(), launcher_words));
    const RunResult library = run(with(cli(), library_words));
    EXPECT_EQ(library.exit_code, 0) << library.describe();
    EXPECT_EQ(launcher.out, library.out) << launcher.describe() << library.describe();
  }
  // help of no command: one error line from the command library, exit status 2.
  const RunResult unknown = run(with(cli(), {"help", "nosuch"}));
  EXPECT_EQ(unknown.exit_code, 2) << unknown.describe();
  const auto err = lines(unknown.err);
  ASSERT_EQ(err.size(), 1u) << unknown.describe();
  EXPECT_EQ(err[0], "torch2onnx: error: help: no command 'nosuch' (commands: export, check, plugins, decompose, verify, show)");
}

// The phase names of a --timings line, in order, each with a duration >= 0; "total" last.
std::vector<std::string> phases(const std::string& line, double& sum, double& total) {
  std::vector<std::string> names;
  static const std::regex phase(R"( ([a-z-]+) ([0-9]+\.[0-9]{3}) s)");
  sum = total = 0;
  for (std::sregex_iterator it(line.begin(), line.end(), phase), end; it != end; ++it) {
    const double seconds = std::stod((*it)[2]);
    if ((*it)[1] == "total") {
      total = seconds;
      continue;
    }
    names.push_back((*it)[1]);
    sum += seconds;
  }
  return names;
}

std::string timings_line(const std::string& err, const std::string& prefix) {
  for (const auto& l : lines(err))
    if (l.rfind(prefix, 0) == 0) return l;
  return {};
}

const std::vector<std::string> kExportPhases = {"signature", "kernel-libraries", "custom-ops", "load", "prepare",
                                                "run", "convert", "check", "write"};

TEST(Timings, NameEachStartUpPhase) {
  const fs::path out = fresh_out_dir();
  const std::string model = (source_dir() / "examples" / "tiny_cnn" / "tiny_cnn.pt").string();
  const RunResult r = run(with(cli(), {"export", model, "-o", (out / "tiny.onnx").string(), "--input",
                                       "float32[1,3,32,32]", "-q", "--timings"}));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string line = timings_line(r.err, "torch2onnx: timings:");
  ASSERT_FALSE(line.empty()) << r.describe();
  double sum = 0, total = 0;
  std::vector<std::string> expected = {"exec", "libtorch", "plugin-dirs", "packs"};
  expected.insert(expected.end(), kExportPhases.begin(), kExportPhases.end());
  EXPECT_EQ(phases(line, sum, total), expected) << line;
  EXPECT_NEAR(total, sum, 0.001 * expected.size()) << line;

  // A batch: the first model's line has the process's start-up, the next one only its own export.
  const fs::path jobs = out / "jobs.txt";
  {
    std::ofstream f(jobs);
    for (const char* name : {"a", "b"})
      f << model << " -o " << (out / (std::string(name) + ".onnx")).string() << " --input float32[1,3,32,32]\n";
  }
  const RunResult b = run(with(cli(), {"export", "--batch", jobs.string(), "-q", "--timings"}));
  ASSERT_EQ(b.exit_code, 0) << b.describe();
  const std::string first = timings_line(b.err, "torch2onnx: [1/2] timings:");
  const std::string second = timings_line(b.err, "torch2onnx: [2/2] timings:");
  EXPECT_EQ(phases(first, sum, total), expected) << b.describe();
  EXPECT_EQ(phases(second, sum, total), kExportPhases) << b.describe();
}

}  // namespace
