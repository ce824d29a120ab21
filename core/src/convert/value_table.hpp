// Stage 2 of a conversion: the value table. Every value a symbolic can hold a handle to (t2o_value,
// an index here): TorchScript values bound to what their symbolic made, constants, emitted ONNX
// tensors and sequences, closed subgraphs. Constants become initializers of the main graph (stored
// once per tensor) when an ONNX node needs them.
#ifndef TORCH2ONNX_CORE_VALUE_TABLE_HPP
#define TORCH2ONNX_CORE_VALUE_TABLE_HPP

#include "convert/graph_builder.hpp"
#include "common/type_table.hpp"

#include <torch2onnx/plugin.h>
#include <torch/script.h>

#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace t2o::core {

struct ValueRec {
  t2o_kind kind = T2O_KIND_OTHER;
  bool constant = false;
  std::string onnx;  // ONNX tensor or sequence name (tensors, dynamic scalars, sequences), empty until it exists
  int32_t dtype = 0;  // element type (of a sequence's tensors, for sequences)
  int32_t rank = -1;
  std::vector<int64_t> dims;
  at::Tensor tensor;  // constant tensor (contiguous)
  int64_t i = 0;      // constant INT / BOOL; a GRAPH's subgraph handle
  double f = 0;       // constant FLOAT
  std::string s;      // constant STRING; for constant tensors, a name hint
  bool weight = false;  // a constant tensor freezing made from a module attribute (--no-weights)
  std::vector<t2o_value> items;  // LIST
  t2o_value materialized = T2O_NO_VALUE;  // cached value_as_onnx of a constant
};

// An initializer, kept as a tensor until the model is written (weights are copied once).
struct Initializer {
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> dims;
  at::Tensor tensor;
  bool weight = false;  // a module attribute (ValueRec::weight)
};

t2o_kind kind_of_type(const c10::TypePtr& type);

class ValueTable {
 public:
  ValueTable(GraphBuilder& graph, const TypeTable& types) : graph_(graph), types_(types) {}

  ValueRec& rec(t2o_value v);
  bool valid(t2o_value v) const { return v >= 0 && (size_t)v < values_.size(); }
  t2o_value add(ValueRec r);

  // TorchScript value -> the handle its symbolic bound (or a constant's, a graph input's).
  void bind(const torch::jit::Value* v, t2o_value h) { bound_[v] = h; }
  bool is_bound(const torch::jit::Value* v) const { return bound_.count(v) > 0; }
  t2o_value handle_of(const torch::jit::Value* v) const;  // throws ExportError naming the producer
  // A symbolic binds output `index` of `node`; tensors without a type take the recorded one.
  void bind_output(const torch::jit::Node* node, size_t index, t2o_value v);
  // Type-only record of a TorchScript value (what ctx.output(i) reads).
  t2o_value type_handle_of(const torch::jit::Value* v);
  // A handle for a typed ONNX value of kind TENSOR/SEQUENCE/INT/FLOAT/BOOL with the recorded type of `tv`.
  t2o_value placeholder(const torch::jit::Value* tv, const std::string& onnx_name);

  void add_constant(const torch::jit::Node* node);  // prim::Constant
  t2o_value materialize(t2o_value v);               // value_as_onnx: the ONNX tensor behind a value
  t2o_value add_initializer(const at::Tensor& t, int32_t onnx_dtype, const std::string& hint = "",
                            bool weight = false);

  std::vector<Initializer>& initializers() { return initializers_; }
  // After assembly: the table lets go of every tensor it held.
  void release();

 private:
  ValueRec constant_tensor(const at::Tensor& t, const torch::jit::Node* node, const std::string& hint);

  GraphBuilder& graph_;
  const TypeTable& types_;
  std::deque<ValueRec> values_;  // a deque: references stay valid while it grows
  std::unordered_map<const torch::jit::Value*, t2o_value> bound_;
  std::unordered_map<const torch::jit::Value*, t2o_value> type_only_;
  std::unordered_map<const c10::TensorImpl*, t2o_value> initializer_of_;
  std::vector<Initializer> initializers_;
};

// Appends an ONNX node to the innermost open graph; outputs receives spec.num_outputs fresh values.
// On a malformed spec returns T2O_NO_VALUE with `error` set.
t2o_value emit_node(ValueTable& values, GraphBuilder& graph, const t2o_node_spec& spec, t2o_value* outputs,
                    std::string& error);

// The core's own nodes (graph boundary, returned numbers): one default-domain node with one output
// and `num_attrs` attributes (none when attrs is null). A failure is an internal ExportError naming
// `what` and the op.
t2o_value emit_single(ValueTable& values, GraphBuilder& graph, const char* op, std::vector<t2o_value> inputs,
                      const t2o_attr* attrs, int32_t num_attrs, const std::string& what);

}  // namespace t2o::core

#endif
