// torch2onnx's commands: the program's main() behind its launcher (launcher.cpp), in the command
// library libtorch2onnx_cli.so, which links the core and libtorch.
#include "commands.hpp"
#include "launch.h"

#include <torch2onnx/core/error_reason.hpp>
#include <torch2onnx/core/exporter.hpp>
#include <torch2onnx/core/printable.hpp>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

namespace {

// --verbose or T2O_DEBUG=1 (any value but "" and "0").
bool verbose = false;

const t2o_cli_launch* launched = nullptr;

bool debug_env() {
  const char* v = std::getenv("T2O_DEBUG");
  return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace

namespace t2o::cli {

// Every error and warning line of the program is printed here: escaped and bounded (printable.hpp),
// since messages quote file names, file contents and libtorch's text.
void print_error(const std::string& message) {
  std::cerr << "torch2onnx: error: " << t2o::core::printable(message) << std::endl;
}

bool verbose_errors() { return verbose || debug_env(); }

const t2o_cli_launch* launch_times() { return launched; }

// After the one error line: the message it was chosen from, when asked for and longer than the line.
// A line cut to its bound (printable.hpp) is also printed whole.
void print_details(const std::string& line, const std::string& details) {
  if (!verbose_errors()) return;
  const bool cut = t2o::core::printable(line) != t2o::core::printable(line, std::string::npos);
  if ((details.empty() || details == line) && !cut) return;
  const std::string text = t2o::core::printable_lines(details.empty() ? line : details);
  std::cerr << "torch2onnx: the whole message:\n" << text;
  if (text.back() != '\n') std::cerr << '\n';
}

Failure describe_current_exception() {
  try {
    throw;
  } catch (const UsageError& e) {
    return {2, e.what(), e.details};
  } catch (const t2o::core::SignatureError& e) {  // --input that does not fit forward(): a usage mistake
    return {2, e.what(), ""};
  } catch (const t2o::core::ExportError& e) {
    return {1, e.what(), e.details()};
  } catch (const std::exception& e) {
    // Not one of ours: libtorch's (or another library's) message, of any length.
    const std::string line = t2o::core::error_reason(e.what());
    return {1, "internal error: " + line, e.what()};
  } catch (...) {
    return {1, "internal error (unknown exception)", ""};
  }
}
void print_warning(const std::string& message) {
  std::cerr << "torch2onnx: warning: " << t2o::core::printable(message) << std::endl;
}

}  // namespace t2o::cli

extern "C" __attribute__((visibility("default"))) int t2o_cli_main(int argc, char** argv, const t2o_cli_launch* launch) {
  using namespace t2o::cli;
  launched = launch;
  // Nothing registers ops in this process before the default kernel libraries: no fork to try them
  // first (exporter.hpp). --load-library files still are.
  t2o::core::set_default_kernel_library_probe(false);
  // --verbose is global: taken out before the command parses its own options.
  std::vector<char*> kept;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::strcmp(argv[i], "--verbose") == 0) verbose = true;
    else kept.push_back(argv[i]);
  }
  argc = int(kept.size());
  kept.push_back(nullptr);
  argv = kept.data();
  if (argc < 2) {
    std::cerr << usage_text();
    return 2;
  }
  std::string command = argv[1];
  try {
    Args args(argc, argv, 2);
    if (command == "export") return run_export(args);
    if (command == "plugins") return run_plugins(args);
    if (command == "check") return run_check(args);
    if (command == "decompose") return run_decompose(args);
    if (command == "verify") return run_verify(args);
    if (command == "show") return run_show(args);
    // The launcher answers these itself; the same answers here (help of an unknown command reaches
    // only this one).
    if (command == "help" && argc > 2) {
      const auto text = command_help(argv[2]);
      if (!text) throw UsageError(std::string("help: no command '") + argv[2] + "' (commands: export, check, plugins, decompose, verify, show)");
      std::cout << *text;
      return 0;
    }
    if (command == "help" || is_help_flag(command)) {
      std::cout << usage_text();
      return 0;
    }
    if (command == "--version") {
      std::cout << version_line();
      return 0;
    }
    print_error("unknown command '" + command + "' (commands: export, check, plugins, decompose, verify, show; see --help)");
    return 2;
  } catch (...) {
    const Failure f = describe_current_exception();
    print_error(f.line);
    print_details(f.line, f.details);
    return f.exit_code;
  }
}
