// torch2onnx: convert TorchScript models to ONNX through op packs loaded at start-up.
#include "commands.hpp"

#include <torch2onnx/core/exporter.hpp>

#include <cstring>
#include <iostream>

namespace {

const char* kUsage =
    "usage: torch2onnx <command> [options]\n"
    "\n"
    "commands:\n"
    "  export MODEL.pt -o OUT.onnx [options]   convert a TorchScript model to ONNX\n"
    "  check MODEL.pt [options]                list every op that cannot be converted, at once\n"
    "  plugins [--json] [--plugin-path DIR]     list loaded op packs and refused files\n"
    "  decompose MODEL.pt -o OUT.pt             torch.onnx.ops calls -> ATen ops (runs without torch2onnx)\n"
    "\n"
    "'torch2onnx <command> --help' describes a command's options.\n";

}  // namespace

namespace t2o::cli {

void print_error(const std::string& message) { std::cerr << "torch2onnx: error: " << message << std::endl; }
void print_warning(const std::string& message) { std::cerr << "torch2onnx: warning: " << message << std::endl; }

}  // namespace t2o::cli

int main(int argc, char** argv) {
  using namespace t2o::cli;
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
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << kUsage;
      return 0;
    }
    if (command == "--version") {
      std::cout << "torch2onnx 0.1.0 (plugin ABI " << T2O_ABI_MAJOR << "." << T2O_ABI_MINOR << ")\n";
      return 0;
    }
    print_error("unknown command '" + command + "' (commands: export, check, plugins, decompose; see --help)");
    return 2;
  } catch (const UsageError& e) {
    print_error(e.what());
    return 2;
  } catch (const t2o::core::SignatureError& e) {  // --input that does not fit forward(): a usage mistake
    print_error(e.what());
    return 2;
  } catch (const t2o::core::ExportError& e) {
    print_error(e.what());
    return 1;
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return 1;
  } catch (...) {
    print_error("internal error (unknown exception)");
    return 1;
  }
}
