// What `torch2onnx verify` needs from the core: a conversion kept in memory with, for every
// TorchScript node of the converted graph, the ONNX values holding its inputs and outputs (so they
// can be exposed as extra graph outputs) and where it came from; libtorch's values of the same
// TorchScript values on given inputs; and tensors read from and written to ONNX TensorProto (.pb)
// and NumPy (.npy) files. Failures are ExportError with one line.
#ifndef TORCH2ONNX_CORE_VERIFY_HPP
#define TORCH2ONNX_CORE_VERIFY_HPP

#include "torch2onnx/core/exporter.hpp"

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace t2o::core {

// One tensor value of the converted TorchScript graph that the localisation can compare.
struct ProbeValue {
  size_t id = 0;       // the TorchScript value (Value::unique())
  std::string name;    // its TorchScript debug name, "%x.3"
  std::string onnx;    // the ONNX value holding it in the main graph; "" when it has none (folded
                       // into a constant, or not a tensor in ONNX)
  std::string folded;  // why there is no ONNX value ("folded into a constant", ...)
};

// One top-level TorchScript node of the converted graph, in topological order.
struct ProbeNode {
  std::string op;        // "aten::gelu"
  std::string location;  // "encoder.layers.1.linear1 (Linear), code/__torch__.py:12"
  std::string pack;      // the pack whose symbolic converted it
  std::string symbolic;  // "aten::gelu since opset 9 (FILE)"
  std::vector<size_t> inputs, outputs;  // indices into Conversion::values (tensor values only)
  std::vector<std::string> onnx_nodes;  // the ONNX nodes it made (main graph)
};

// A model converted in memory, with the graph that was converted kept runnable.
class Conversion {
 public:
  ~Conversion();
  // Converts as export_model does (checked and shape-inferred), without writing.
  static std::unique_ptr<Conversion> convert(const std::string& model_path, const ExportOptions& options,
                                             const t2o::registry::Registry& registry);

  // Writes the model (weights inline unless above 2 GB); `extra_outputs` are ONNX value names
  // added as graph outputs (the probes). No partial file is left.
  void write(const std::string& path, const std::vector<std::string>& extra_outputs = {}) const;

  const std::vector<ProbeValue>& values() const { return values_; }
  const std::vector<ProbeNode>& nodes() const { return nodes_; }
  std::vector<std::string> input_names() const;   // the ONNX graph's inputs
  std::vector<std::string> output_names() const;  // the ONNX graph's outputs
  // With dynamic axes: the input shapes of the example run at other sizes (one per ONNX input), at
  // which the model is known to run; empty without dynamic axes.
  const std::vector<std::vector<int64_t>>& other_sizes() const { return other_sizes_; }

  // Runs the converted TorchScript graph on `inputs` (one per ONNX graph input) and returns the
  // value of each probe value that is a tensor at run time (key: index into values()). Throws
  // ExportError with libtorch's message when the run fails.
  std::map<size_t, at::Tensor> record(const std::vector<at::Tensor>& inputs) const;

  // A subgraph of the model with the ONNX nodes of nodes()[k]: inputs are the ONNX values of its
  // TorchScript inputs, outputs those of its outputs, initializers those its nodes read. Empty
  // when its nodes read any other value of the graph (then only the whole model reproduces it).
  std::string subgraph(size_t k, const std::string& path) const;

 private:
  Conversion();
  struct State;
  std::unique_ptr<State> state_;
  std::vector<ProbeValue> values_;
  std::vector<ProbeNode> nodes_;
  std::vector<std::vector<int64_t>> other_sizes_;
};

// The TorchScript model at model_path as libtorch runs it (eval mode, no autograd), loaded once
// (after the kernel libraries and the packs' custom ops, as export loads it).
class TorchScriptModel {
 public:
  TorchScriptModel(const std::string& model_path, const ExportOptions& options, const t2o::registry::Registry& registry);
  ~TorchScriptModel();
  // forward(args) (None for `--input none`; trailing arguments left out take their defaults), its
  // outputs flattened as the exporter flattens them (tuples and lists in order; numbers as 0-d
  // tensors). Throws ExportError with libtorch's message.
  std::vector<at::Tensor> run(const std::vector<c10::IValue>& args) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::string path_;
};

// Tensor files. read_tensor_file reads an ONNX TensorProto (.pb) or a NumPy array (.npy, C order,
// little-endian); `name` receives the TensorProto's name ("" for .npy).
at::Tensor read_tensor_file(const std::string& path, std::string* name = nullptr);
void write_tensor_pb(const std::string& path, const at::Tensor& t, const std::string& name);

// The graph inputs (not initializers) of an ONNX file, with element type name ("float32") and dims
// (-1 for a symbolic dim). Throws ExportError when the file cannot be read as an ONNX model.
struct OnnxInputInfo {
  std::string name, dtype;
  std::vector<int64_t> dims;
};
std::vector<OnnxInputInfo> onnx_inputs(const std::string& path);
std::vector<std::string> onnx_outputs(const std::string& path);

// `torch2onnx show` / `export --print`: the graph as text in the style of torch.onnx's verbose=True.
std::string format_onnx_file(const std::string& path);

}  // namespace t2o::core

#endif
