// torch2onnx show: an ONNX file's graph as text (torch.onnx's verbose=True style).
#include "commands.hpp"

#include <torch2onnx/core/verify.hpp>

#include <iostream>

namespace t2o::cli {

namespace {

const char* kShowHelp =
    "usage: torch2onnx show MODEL.onnx\n"
    "\n"
    "Prints the graph: its inputs with element types and shapes, one line per node (output types, op,\n"
    "attributes, inputs, and the scope it came from when the file records it: torch2onnx export\n"
    "--print writes each node's TorchScript op and location as its doc_string), subgraphs indented,\n"
    "and the initializers summarized (name, type, shape). Exit status 2 for an unreadable file.\n";

}  // namespace

int run_show(Args& args) {
  std::string model;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << kShowHelp;
      return 0;
    }
    std::string p = args.positional();
    if (!model.empty()) throw UsageError("more than one model given ('" + model + "' and '" + p + "')");
    model = p;
  }
  if (model.empty()) throw UsageError("no model given (torch2onnx show MODEL.onnx)");
  std::string text;
  try {
    text = t2o::core::format_onnx_file(model);
  } catch (const t2o::core::ExportError& e) {
    throw UsageError(e.what());
  }
  std::cout << printable_lines(text);  // names and doc strings are the file's
  return 0;
}

}  // namespace t2o::cli
