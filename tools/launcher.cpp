// torch2onnx, the program: answers --version and the help texts itself, and loads the command library
// (libtorch2onnx_cli.so: the commands, the core, libtorch) for everything else. The program does not
// link libtorch, whose start-up (relocations, static registration of its operators: ~0.4 s and
// 165 MiB) is a floor for any process that loads it; --version and --help do not pay it.
//
// Only exact forms are answered here: `--version`; `--help`, `-h`, `help` (each as the first word);
// `help COMMAND` and `COMMAND --help|-h` for a known COMMAND; no words at all (the usage, exit status
// 2). Anything else, errors included, goes to the command library, which parses the whole command
// line as before (and answers the same help texts: help_text.cpp is compiled into both).
#include "help_text.hpp"
#include "launch.h"
#include "weights_head_start.hpp"

#include <torch2onnx/core/printable.hpp>

#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

// jemalloc's options for this program (read at its first allocation; MALLOC_CONF still overrides):
// freed pages stay with the process for reuse instead of going back to the kernel 10 s later. On a VM
// with free-page reporting, a page the kernel gets back is slow to touch again (faulted in from the
// host), and one process exporting many models (`export --batch`) re-touches the same amount each
// time: the bench's 20 models take 6.7-7.0 s instead of 7.7-7.8 s. Peak RSS is unchanged (the
// largest model's); RSS just does not fall before exit. Unused when jemalloc is not linked.
extern "C" {
const char* malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";
}

namespace {

double monotonic_seconds() {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

int print(FILE* stream, const std::string& text, int status) {
  std::fwrite(text.data(), 1, text.size(), stream);
  return status;
}

int fail(const std::string& message) {
  return print(stderr, "torch2onnx: error: " + t2o::core::printable(message) + "\n", 1);
}

// The directory of this program, from the kernel (argv[0] may be a bare name found on PATH).
std::string program_dir() {
  std::vector<char> path(4096);
  for (;;) {
    ssize_t n = readlink("/proc/self/exe", path.data(), path.size());
    if (n < 0) return {};
    if (size_t(n) < path.size()) {
      std::string self(path.data(), size_t(n));
      return self.substr(0, self.rfind('/'));
    }
    path.resize(path.size() * 2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  t2o_cli_launch launch{monotonic_seconds(), 0, nullptr};
  // The words as the command library reads them: --verbose is global and taken out first.
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--verbose") != 0) words.emplace_back(argv[i]);
  using namespace t2o::cli;
  if (words.empty()) return print(stderr, usage_text(), 2);
  const std::string& command = words[0];
  if (command == "--version") return print(stdout, version_line(), 0);
  if (command == "help" && words.size() > 1) {
    if (auto text = command_help(words[1])) return print(stdout, *text, 0);
  } else if (command == "help" || is_help_flag(command)) {
    return print(stdout, usage_text(), 0);
  } else if (words.size() > 1 && is_help_flag(words[1])) {
    if (auto text = command_help(command)) return print(stdout, *text, 0);
  }

  // A large export's weights start copying now, while libtorch starts (weights_head_start.hpp).
  const std::unique_ptr<t2o::cli::WeightsHeadStart> head_start = t2o::cli::WeightsHeadStart::start(words);
  launch.head_start = head_start ? head_start->view() : nullptr;

  const std::string dir = program_dir();
  if (dir.empty()) return fail(std::string("cannot find the program's own path (/proc/self/exe): ") + std::strerror(errno));
  const std::string library = dir + "/" + T2O_CLI_LIBRARY_FROM_BIN;
  // RTLD_GLOBAL: libtorch and the core in the global scope, as when the program linked them, for the
  // kernel libraries and packs loaded later.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char* why = dlerror();
    return fail("cannot load the command library " + library + ": " + (why ? why : "unknown reason") +
                " (reinstall torch2onnx)");
  }
  launch.library_loaded = monotonic_seconds();
  auto cli_main = reinterpret_cast<t2o_cli_main_fn>(dlsym(handle, T2O_CLI_MAIN_SYMBOL));
  if (!cli_main) return fail(library + " has no " T2O_CLI_MAIN_SYMBOL " (a command library of another build?)");
  return cli_main(argc, argv, &launch);
}
