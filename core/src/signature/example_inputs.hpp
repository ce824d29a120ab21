// Example values for the example run: --example-inputs DIR, or the tensors torch2onnx.save()
// stored inside the .pt.
#ifndef TORCH2ONNX_CORE_EXAMPLE_INPUTS_HPP
#define TORCH2ONNX_CORE_EXAMPLE_INPUTS_HPP

#include "load/model_loader.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <ATen/ATen.h>

#include <string>
#include <utility>
#include <vector>

namespace t2o::core {

// Every .npy and ONNX TensorProto .pb file of `dir`, in name order (digit runs compared as numbers:
// input_2 before input_10), as (path, tensor). Throws SignatureError / ExportError naming the file.
std::vector<std::pair<std::string, at::Tensor>> read_example_dir(const std::string& dir);
// The .npy extra files `files` of the archive at model_path.
std::vector<std::pair<std::string, at::Tensor>> read_saved_examples(const std::string& model_path,
                                                                    const std::vector<std::string>& files);
// Tensor specs with the examples' dtypes and shapes (--example-inputs without --input).
std::vector<InputSpec> specs_of_examples(const std::vector<std::pair<std::string, at::Tensor>>& examples);
// The examples checked against the graph inputs' specs (count, dtype, shape), in order.
std::vector<at::Tensor> match_examples(const std::vector<std::pair<std::string, at::Tensor>>& examples,
                                       const std::vector<InputSpec>& specs, const std::vector<std::string>& names,
                                       const std::string& source);

// What an export runs with: the given options completed by the signature the .pt carries
// (torch2onnx.save: specs, names, dynamic axes when no --input is given), and the example values
// (--example-inputs, else the saved ones). Without --input, --example-inputs alone gives the specs
// of plain tensor arguments.
struct ResolvedSignature {
  ExportOptions options;
  std::vector<std::pair<std::string, at::Tensor>> examples;
  std::string examples_source;  // "--example-inputs DIR" or the model, for messages
  // A torch.export program's output sizes (LoadedProgram::output_sizes) when its own input specs are
  // used. Empty for TorchScript.
  std::vector<std::vector<int64_t>> output_sizes;
};
ResolvedSignature resolve_signature(const ExportOptions& given, const std::string& model_path);
// After prepare(): the examples checked against the graph inputs and handed to the example run (with
// a program's output sizes).
void attach_examples(PreparedModel& model, const ResolvedSignature& resolved);

}  // namespace t2o::core

#endif
