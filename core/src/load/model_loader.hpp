// Loading a TorchScript archive and preparing its forward graph for conversion.
#ifndef TORCH2ONNX_CORE_MODEL_LOADER_HPP
#define TORCH2ONNX_CORE_MODEL_LOADER_HPP

#include "torch2onnx/core/error_reason.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <torch/script.h>

#include <memory>
#include <string>
#include <vector>

namespace t2o::core {

struct PreparedModel {
  torch::jit::Module module;               // frozen; owns the weights the graph's constants point to
  std::shared_ptr<torch::jit::Graph> graph;  // forward(), self removed, ready to walk
  std::vector<std::string> argument_names;   // forward()'s arguments, without self
  std::vector<c10::TypePtr> argument_types;
  std::vector<c10::optional<c10::IValue>> argument_defaults;
  std::string missing_defaults;  // 'a', 'b': trailing arguments given no --input and without a default
  std::vector<InputSpec> input_specs;  // the spec of each graph input, once --input is bound (signature.cpp)
  std::vector<at::Tensor> example_values;  // the first example run's inputs (--example-inputs); empty: made up
  std::vector<std::string> state_in_call;  // attributes forward() writes, computed within one call (state_in_call.cpp)
  std::vector<std::string> dropped_state_updates;  // running statistics not exported (training mode; running_stats.cpp)
  std::vector<std::vector<int64_t>> output_sizes;  // a .pt2's fixed output sizes, per output (-1: not fixed)
};

// Throws ExportError with one line for a missing, unreadable, non-TorchScript or corrupt file.
// lazy_weights: leave large weight records in the file (lazy_weights.hpp; ExportOptions::lazy_weights);
// signal_handler: what the load itself reads is filled by the SIGSEGV handler, else such archives
// (a __setstate__, custom classes) load eagerly (ExportOptions::lazy_weights_handler).
torch::jit::Module load_torchscript(const std::string& path, bool lazy_weights = false, bool signal_handler = true);

// prepare() and the other graph passes: passes.hpp.

// Rewrites in-place writes into views (x[a:b] = v) and into tensors read again afterwards as
// functional ops plus slice_scatter/select_scatter; what it can't rewrite exactly stays in place
// (the converter refuses it). inplace_views.cpp.
void functionalize_view_writes(const std::shared_ptr<torch::jit::Graph>& graph);

// Quantized models: packed-parameter constants (Conv2dPackedParamsBase, LinearPackedParamsBase, …) and
// quantized tensor constants become torch2onnx:: ops over ordinary constants. quantized_params.cpp.
void unpack_quantized_params(const std::shared_ptr<torch::jit::Graph>& graph);
// Before loading: the quantized engine that packs the most (FBGEMM, else QNNPACK).
void choose_quantized_engine();
// After loading: true when the model holds 3-d quantized convolutions that the current engine
// (QNNPACK) cannot unpack; the engine is then switched to oneDNN and the model must be loaded again.
bool engine_for_3d_convs(const torch::jit::Module& module);
// Before freezing: QAT fake quantizers with their observer off become plain fake-quantize calls.
void unfuse_fake_quantizers(const torch::jit::Module& module);

// first_line / error_reason (the line to print from a libtorch error): torch2onnx/core/error_reason.hpp.

}  // namespace t2o::core

#endif
