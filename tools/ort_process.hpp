// ONNX Runtime for `torch2onnx verify`: node running ort_runner.js (installed beside the program in
// ../share/torch2onnx/) with npm's onnxruntime-node, found by --ort-dir, TORCH2ONNX_ORT_DIR or the
// source tree's tests/ort/node_modules (scripts/setup.sh installs it there).
#ifndef TORCH2ONNX_TOOLS_ORT_PROCESS_HPP
#define TORCH2ONNX_TOOLS_ORT_PROCESS_HPP

#include <string>
#include <vector>

namespace t2o::cli {

class OrtRunner {
 public:
  // Finds node, the runner script and onnxruntime-node; a UsageError (one line) when one is missing.
  explicit OrtRunner(const std::string& ort_dir_option);
  // Runs MODEL on IN_DIR/input_K.pb, writing OUT_DIR/output_K.pb for `outputs` (all when empty).
  // An ExportError with ONNX Runtime's message when it cannot load or run the model.
  void run(const std::string& model, const std::string& in_dir, const std::string& out_dir,
           const std::vector<std::string>& outputs) const;

 private:
  std::string node_, script_, ort_dir_;
};

}  // namespace t2o::cli

#endif
