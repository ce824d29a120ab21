// ONNX Runtime for verify: node running ort_runner.js (installed beside the program in
// ../share/torch2onnx/; its source is tools/ort_runner.js) with npm's onnxruntime-node, found by the
// request's ort_dir (--ort-dir), TORCH2ONNX_ORT_DIR or the source tree's tests/ort/node_modules
// (scripts/setup.sh installs it there). Tensors go in and out as TensorProto files (.pb).
#ifndef TORCH2ONNX_CORE_TOOLS_ORT_RUNNER_HPP
#define TORCH2ONNX_CORE_TOOLS_ORT_RUNNER_HPP

#include <string>
#include <vector>

namespace t2o::core {

class OrtRunner {
 public:
  // Finds node (TORCH2ONNX_NODE, else node or nodejs on PATH), the runner script and
  // onnxruntime-node; a VerifyRequestError (one line) when one is missing.
  explicit OrtRunner(const std::string& ort_dir_option);
  // Runs MODEL on IN_DIR/input_K.pb, writing OUT_DIR/output_K.pb for `outputs` (all when empty).
  // An ExportError with ONNX Runtime's message when it cannot load or run the model.
  void run(const std::string& model, const std::string& in_dir, const std::string& out_dir,
           const std::vector<std::string>& outputs) const;

 private:
  std::string node_, script_, ort_dir_;
};

}  // namespace t2o::core

#endif
