// torch2onnx decompose MODEL.pt -o OUT.pt: torch.onnx.ops calls -> ATen ops (torch.onnx.ops'
// aten_decompositions for TorchScript files).
#include "commands.hpp"
#include "export_options.hpp"

#include <torch2onnx/core/decompose.hpp>
#include <torch2onnx/core/exporter.hpp>

#include <iostream>

namespace t2o::cli {

int run_decompose(Args& args) {
  std::string model, out, value;
  bool quiet = false, default_libraries = true;
  std::vector<std::string> libraries;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << decompose_help();
      return 0;
    } else if (args.option("-o", value) || args.option("--output", value)) {
      out = value;
    } else if (parse_library_option(args, libraries, default_libraries)) {
    } else if (args.flag("-q") || args.flag("--quiet")) {
      quiet = true;
    } else {
      std::string p = args.positional();
      if (!model.empty()) throw UsageError("more than one model given ('" + model + "' and '" + p + "')");
      model = p;
    }
  }
  if (model.empty()) throw UsageError("no model given (torch2onnx decompose MODEL.pt -o OUT.pt)");
  if (out.empty()) throw UsageError("no output given (-o OUT.pt)");
  const auto stats = t2o::core::decompose_onnx_ops(model, out, libraries, default_libraries, [quiet](const std::string& w) {
    if (!quiet) print_warning(w);
  });
  if (!quiet) {
    std::cerr << "torch2onnx: decomposed " << stats.rotary_embedding << " RotaryEmbedding and " << stats.attention
              << " Attention call(s) into ATen ops: " << out << std::endl;
    if (stats.symbolic_left)
      print_warning(std::to_string(stats.symbolic_left) +
                    " onnx_symbolic call(s) stay: they have no ATen form and need the torch2onnx op library");
  }
  return 0;
}

}  // namespace t2o::cli
