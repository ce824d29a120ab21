// The converter: the value table, the host side of the C ABI, and the graph walk.
#ifndef TORCH2ONNX_CORE_CONVERTER_HPP
#define TORCH2ONNX_CORE_CONVERTER_HPP

#include "model_loader.hpp"
#include "model_writer.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <torch2onnx/plugin.h>
#include <torch2onnx/registry.hpp>

#include <onnx/onnx_pb.h>
#include <torch/script.h>

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace t2o::core {

// What the example run saw of a TorchScript tensor value.
struct TensorInfo {
  int32_t dtype = 0;  // ONNX element type, 0 if unknown
  std::vector<int64_t> dims;  // -1 where the dim changed with the dynamic axes
  bool known_rank = false;
  std::vector<int64_t> run_dims, alt_dims;  // sizes in the two runs (only with dynamic axes)
  int32_t quantized = 0;  // a quantized tensor: its integer representation's ONNX type (dtype is FLOAT)
  double q_scale = 0;     // per-tensor quantized: its scale and zero point (else q_scale 0)
  int64_t q_zero_point = 0;
};

// One entry of the value table. A handle (t2o_value) is an index into Converter::values_.
struct ValueRec {
  t2o_kind kind = T2O_KIND_OTHER;
  bool constant = false;
  std::string onnx;  // ONNX tensor name (tensors, dynamic scalars), empty until it exists
  int32_t dtype = 0;
  int32_t rank = -1;
  std::vector<int64_t> dims;
  at::Tensor tensor;  // constant tensor (contiguous)
  int64_t i = 0;      // constant INT / BOOL
  double f = 0;       // constant FLOAT
  std::string s;      // constant STRING; for constant tensors, a name hint
  std::vector<t2o_value> items;  // LIST
  t2o_value materialized = T2O_NO_VALUE;  // cached value_as_onnx of a constant
};

// An initializer, kept as a tensor until the model is written (weights are copied once).
struct Initializer {
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> dims;
  at::Tensor tensor;
};

class Converter;

// A symbolic's failure on one node (message: the full line; detail: the symbolic's own words).
struct NodeError : ExportError {
  NodeError(const std::string& line, std::string detail, bool refused)
      : ExportError(line), message(std::move(detail)), unsupported(refused) {}
  std::string message;
  bool unsupported;
};

// One node that could not be converted (check mode).
struct NodeFailure {
  std::string op, overload, schema, reason, message, location;
  std::optional<int64_t> min_opset;
};

// Replaces queries fixed for every run (shapes, dtypes, the export context) with constants, resolves
// the control flow they decide, and drops assertions. Returns whether control flow was removed (new
// top-level values the example run has not seen).
bool fold_static_shapes(const std::shared_ptr<torch::jit::Graph>& graph,
                        const std::unordered_map<torch::jit::Value*, TensorInfo>& types);

}  // namespace t2o::core

// The opaque context a symbolic receives: one call on one TorchScript node.
struct t2o_ctx {
  t2o::core::Converter* conv = nullptr;
  torch::jit::Node* node = nullptr;
  const t2o::registry::Symbolic* symbolic = nullptr;
  std::string error;
  std::string location;  // computed once per node
  std::vector<std::string> borrowed;  // strings handed out for the duration of the call
};

namespace t2o::core {

class Converter {
 public:
  Converter(const t2o::registry::Registry& registry, const ExportOptions& options, PreparedModel& model,
            const std::string& model_path);

  // Runs the graph on example inputs made from the --input specs and records every tensor's type.
  void record_types();
  // Converts every node; throws ExportError naming what failed and where. In check mode it keeps
  // going instead and records each failure (failures()).
  void convert();
  void set_check_mode(bool on) { check_mode_ = on; }
  // Check mode without example inputs: records the nodes no symbolic is registered for.
  void scan_missing();
  const std::vector<NodeFailure>& failures() const { return failures_; }
  // Builds the model skeleton: small initializers inline, large ones as placeholders whose tensors
  // go to `streamed` (written by write_model). The converter lets go of every tensor it held.
  onnx::ModelProto build_model(std::vector<StreamedTensor>* streamed);

  const ExportStats& stats() const { return stats_; }
  // "aten::op at LOCATION (pack P)" for an emitted ONNX node name, to attribute checker errors.
  std::string origin_of(const std::string& onnx_node) const;
  // After shape inference: ops whose ONNX result has a fixed size where the TorchScript value's size
  // varies with the dynamic axes (a size was specialized), one line each, in graph order.
  std::vector<std::string> specialization_warnings(const onnx::ModelProto& model) const;

  // ---- used by the host API (host_api.cpp) ----
  ValueRec& rec(t2o_value v);
  bool valid(t2o_value v) const { return v >= 0 && (size_t)v < values_.size(); }
  t2o_value add(ValueRec r);
  t2o_value handle_of(torch::jit::Value* v);  // the handle bound to a TorchScript value
  t2o_value type_handle_of(torch::jit::Value* v);  // type-only record for a TorchScript output
  t2o_value materialize(t2o_value v);  // value_as_onnx
  t2o_value add_initializer(const at::Tensor& t, int32_t onnx_dtype, const std::string& hint = "");
  t2o_value emit(const t2o_node_spec& spec, t2o_value* outputs, std::string& error);
  void bind_output(torch::jit::Node* node, int32_t index, t2o_value v);
  int64_t opset_of(const std::string& domain) const;
  void require_opset(const std::string& domain, int64_t version);
  std::string unique_name(const std::string& hint);
  void warn(const std::string& message);
  static std::string location_of(torch::jit::Node* node);
  static t2o_kind kind_of_type(const c10::TypePtr& type);
  const t2o_host_api* host_api() const;
  // After an op that is not quantization-aware ran on quantized inputs: rounds each per-tensor quantized
  // output to its grid (QuantizeLinear/DequantizeLinear with the example run's scale and zero point),
  // as PyTorch's quantized kernels do (average pooling, upsampling, …). quantized_values.cpp.
  void requantize_outputs(torch::jit::Node* node);
  // The integer type of a quantized TorchScript tensor seen by the example run, else 0.
  int32_t quantized_dtype_of(torch::jit::Value* v) const {
    auto it = types_.find(v);
    return it == types_.end() ? 0 : it->second.quantized;
  }

 private:
  void add_graph_inputs();
  // Binds trailing arguments without an --input to their defaults and `--input none` ones to None
  // (leaving specs_, the --input of the remaining graph inputs); returns the missing ones without a default.
  std::string bind_defaults();
  // The example run(s): with dynamic axes a second one at other sizes marks the dims that vary.
  void record_runs(const std::vector<std::vector<int64_t>>& shapes, const std::vector<std::vector<int64_t>>& varied);
  void add_constant(torch::jit::Node* node);
  ValueRec constant_tensor(const at::Tensor& t, torch::jit::Node* node, const std::string& hint);
  void convert_node(torch::jit::Node* node);
  const t2o::registry::Symbolic* find_symbolic(torch::jit::Node* node) const;
  void check_convertible();
  void unconvertible(torch::jit::Node* node, const std::string& reason, const std::string& message,
                     std::optional<int64_t> min_opset);
  void emit_fallback(torch::jit::Node* node);
  void refuse_lost_writes(torch::jit::Node* node);
  bool check_mode_ = false;
  std::vector<NodeFailure> failures_;
  std::unordered_set<torch::jit::Value*> tainted_;  // outputs of nodes that failed (check mode)
  void finish_outputs();
  void fill_value_info(onnx::ValueInfoProto* info, t2o_value v, torch::jit::Value* torch_value,
                       const std::map<int64_t, std::string>& symbols);
  std::vector<std::string> resolved_input_names() const;
  std::vector<std::string> resolved_output_names() const;
  std::unordered_map<torch::jit::Value*, TensorInfo> run_example(const std::vector<std::vector<int64_t>>& shapes);
  std::unordered_map<torch::jit::Value*, TensorInfo> run_example_on(const std::vector<std::vector<int64_t>>& shapes,
                                                                    bool meta);

  const t2o::registry::Registry& registry_;
  const ExportOptions& options_;
  PreparedModel& model_;
  std::string model_path_;
  std::vector<InputSpec> specs_;  // --input of each graph input (without `none`)

  std::deque<ValueRec> values_;  // a deque: references stay valid while it grows
  std::unordered_map<torch::jit::Value*, t2o_value> bound_;
  std::unordered_map<torch::jit::Value*, t2o_value> type_only_;
  std::unordered_map<torch::jit::Value*, TensorInfo> types_;
  std::unordered_map<const c10::TensorImpl*, t2o_value> initializer_of_;
  std::vector<Initializer> initializers_;
  std::unordered_set<std::string> names_;
  uint64_t name_counter_ = 0;
  std::map<std::string, int64_t> opsets_;  // domain -> version
  std::map<std::string, std::string> pack_of_node_;
  std::unordered_map<std::string, std::string> rename_;  // node output -> graph output name
  struct DynamicValue {
    std::string onnx;
    std::vector<int64_t> dims;  // -1 = varies with the dynamic axes
    std::string origin;         // "aten::view at LOCATION"
  };
  std::vector<DynamicValue> dynamic_values_;
  void collect_dynamic_values();  // ONNX node name -> "aten::op (pack P) at LOC"

  onnx::GraphProto graph_;
  std::vector<std::map<int64_t, std::string>> input_symbols_;   // per input: dynamic axis -> dim name
  std::vector<std::map<int64_t, std::string>> output_symbols_;  // per output: axis -> name ("" = automatic)
  std::map<std::pair<int64_t, int64_t>, std::string> symbol_of_sizes_;  // (size run 1, run 2) -> dim name
  std::vector<std::string> input_names_;
  std::vector<std::string> output_names_;
  ExportStats stats_;
};

}  // namespace t2o::core

#endif
