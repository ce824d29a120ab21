// torch2onnx: convert TorchScript models to ONNX through op packs loaded at start-up.
#include "commands.hpp"

#include <torch2onnx/core/error_reason.hpp>
#include <torch2onnx/core/exporter.hpp>
#include <torch2onnx/core/printable.hpp>
#include <torch2onnx/version.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

namespace {

const char* kUsage =
    "usage: torch2onnx <command> [options]\n"
    "\n"
    "commands:\n"
    "  export MODEL.pt -o OUT.onnx [options]   convert a TorchScript model to ONNX\n"
    "  check MODEL.pt [options]                list every op that cannot be converted, at once\n"
    "  plugins [--json] [--plugin-path DIR]     list loaded op packs and refused files\n"
    "  decompose MODEL.pt -o OUT.pt             torch.onnx.ops calls -> ATen ops (runs without torch2onnx)\n"
    "  verify MODEL.pt [options]                compare the export in ONNX Runtime with libtorch; find the first\n"
    "                                           node that differs (--find-mismatch)\n"
    "  show MODEL.onnx                          print an ONNX graph (inputs, one line per node, initializers)\n"
    "\n"
    "'torch2onnx <command> --help' describes a command's options.\n"
    "\n"
    "global options (anywhere on the command line):\n"
    "  --verbose     after an error's one line, print the whole message it was chosen from\n"
    "                (libtorch's, with the TorchScript traceback); T2O_DEBUG=1 does the same\n"
    "  --version     print the version and the plugin ABI\n";

// --verbose or T2O_DEBUG=1 (any value but "" and "0").
bool verbose = false;

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

int main(int argc, char** argv) {
  using namespace t2o::cli;
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
    std::cerr << kUsage;
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
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << kUsage;
      return 0;
    }
    if (command == "--version") {
      std::cout << "torch2onnx " T2O_VERSION_STRING " (plugin ABI " << T2O_ABI_MAJOR << "." << T2O_ABI_MINOR << ")\n";
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
