// torch2onnx show: an ONNX file's graph as text (torch.onnx's verbose=True style).
#include "commands.hpp"

#include <torch2onnx/core/verify.hpp>

#include <iostream>

namespace t2o::cli {

int run_show(Args& args) {
  std::string model;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << show_help();
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
