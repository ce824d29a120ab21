#include "commands.hpp"

#include <torch2onnx/core/exporter.hpp>

#include <iostream>

namespace t2o::cli {

namespace {

const char* kExportHelp =
    "usage: torch2onnx export MODEL.pt -o OUT.onnx [options]\n"
    "\n"
    "Converts a TorchScript model (torch.jit.script/trace, then .save()) to ONNX.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE        the ONNX file to write (written whole or not at all)\n"
    "  --opset N                target ONNX opset, 9 to 17 (default 17)\n"
    "  --input TYPE[DIMS]       dtype and example shape of each forward() argument, in order,\n"
    "                           e.g. --input float32[1,3,224,224] --input int64[2,16]; float32[] is a scalar\n"
    "  --input-names a,b        graph input names (default: forward()'s argument names)\n"
    "  --output-names y         graph output names (default: output_0, output_1, ...)\n"
    "  --plugin-path DIR        also load op packs from DIR (repeatable; before bundled packs)\n"
    "  -q, --quiet              no warnings or summary\n";

}  // namespace

int run_export(Args& args) {
  std::string model, out, value;
  std::vector<std::string> plugin_dirs;
  t2o::core::ExportOptions options;
  bool quiet = false;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << kExportHelp;
      return 0;
    } else if (args.option("-o", value) || args.option("--output", value)) {
      out = value;
    } else if (args.option("--opset", value)) {
      options.opset = parse_int("--opset", value);
    } else if (args.option("--input", value)) {
      options.inputs.push_back(t2o::core::parse_input_spec(value));
    } else if (args.option("--input-names", value)) {
      options.input_names = split_commas(value);
    } else if (args.option("--output-names", value)) {
      options.output_names = split_commas(value);
    } else if (args.option("--plugin-path", value)) {
      plugin_dirs.push_back(value);
    } else if (args.flag("-q") || args.flag("--quiet")) {
      quiet = true;
    } else {
      std::string p = args.positional();
      if (!model.empty()) throw UsageError("more than one model given ('" + model + "' and '" + p + "')");
      model = p;
    }
  }
  if (model.empty()) throw UsageError("no model given (torch2onnx export MODEL.pt -o OUT.onnx)");
  if (out.empty()) throw UsageError("no output given (-o OUT.onnx)");

  t2o::registry::Registry registry;
  load_plugins(registry, plugin_dirs);
  if (!quiet) warn_refused(registry);
  if (!quiet) options.warn = [](const std::string& m) { print_warning(m); };
  auto stats = t2o::core::export_model(model, out, options, registry);
  if (!quiet)
    std::cerr << "torch2onnx: wrote " << out << " (opset " << options.opset << ", " << stats.onnx_nodes
              << " nodes from " << stats.torch_nodes << " TorchScript nodes, " << stats.initializers
              << " initializers, " << stats.initializer_bytes / 1024 << " KiB of weights)" << std::endl;
  return 0;
}

}  // namespace t2o::cli
