// The nodes of an exported program's graph as TorchScript nodes, so that the rest of the pipeline
// (prepare, the example runs, the packs' symbolics, assembly) converts them as it converts a
// TorchScript model: `torch.ops.aten.X.overload` becomes the node of libtorch's `aten::X.overload`
// (the compatibility library adds what 1.13 lacks), each argument the writer left out because it
// equals its default is filled in from the schema, multi-output nodes are unpacked, size arithmetic
// (`sym_size`, `_operator.*`, `torch.sym_*`) becomes TorchScript's int ops, asserts are dropped.
// Every node keeps the user's source line (`stack_trace`) and module path (`nn_module_stack`).
#pragma once

#include "load/archive_scan.hpp"
#include "program/checked_json.hpp"
#include "program/module_calls.hpp"

#include <torch/script.h>

#include <map>
#include <string>
#include <vector>

namespace t2o::core::program {

// c10's scalar type for the schema's own ScalarType numbering (FLOAT=7, LONG=5, BOOL=12, ...);
// throws ExportError (via `at.fail`) for a number it does not define or libtorch cannot hold.
c10::ScalarType scalar_type_of(const JsonAt& at);

// Where a node came from: the user's file and line (the innermost frame of `stack_trace` outside
// PyTorch itself) and its module path and class from `nn_module_stack`.
struct NodeOrigin {
  std::string file;
  int64_t line = 0;
  std::string code;          // the source line's text, if the trace has it
  std::string module_path;   // "encoder.layers.0"
  std::string module_class;  // "TransformerEncoderLayer"
  std::vector<ModuleCall> calls;  // every module call, outermost first (the exported module's own first)
  std::string text() const;  // "encoder.layers.0 (TransformerEncoderLayer), model.py:12"
};
NodeOrigin origin_of(const JsonAt& node);

// Ops of the program that no libtorch operator (with the compatibility library) implements: all of
// them at once, with where each is called.
struct UnknownProgramOpsError : ExportError {
  UnknownProgramOpsError(const std::string& path, std::vector<CustomOpUse> uses);
  std::vector<CustomOpUse> ops;
};

class ProgramGraphBuilder {
 public:
  // unit: the compilation unit of the module that owns the graph (module_calls.hpp).
  ProgramGraphBuilder(torch::jit::Graph& graph, std::string file, std::shared_ptr<torch::jit::CompilationUnit> unit)
      : graph_(graph), file_(std::move(file)), call_stacks_(std::move(unit)) {}

  void bind_tensor(const std::string& name, torch::jit::Value* v) { tensors_[name] = v; }
  void bind_symbol(const std::string& name, torch::jit::Value* v) { symbols_[name] = v; }
  // Appends every node of `nodes` (graph.nodes); unknown ops are collected, not thrown (unknown()).
  void add_nodes(const JsonAt& nodes);
  // A graph output or other argument as a value (tensor, symbol, constant, None).
  torch::jit::Value* value_of(const JsonAt& argument);
  const std::vector<CustomOpUse>& unknown() const { return unknown_; }

 private:
  void add_node(const JsonAt& node);
  void add_operator_node(const JsonAt& node, const std::string& ns, const std::string& name, const std::string& overload);
  void add_python_op(const JsonAt& node, const std::string& target);
  torch::jit::Value* argument_value(const JsonAt& arg, const c10::TypePtr& formal);
  torch::jit::Value* tensor(const JsonAt& tensor_argument);
  torch::jit::Value* symbol(const JsonAt& sym_argument, const char* kind);
  void bind_outputs(const JsonAt& node, torch::jit::Node* n, const c10::FunctionSchema& schema);
  void add_higher_order(const JsonAt& node, const std::string& name);
  void add_scan(const JsonAt& node, const std::string& name);  // map_impl and scan: a Loop over a dim
  std::vector<torch::jit::Value*> inline_subgraph(const JsonAt& graph_argument,
                                                  const std::vector<torch::jit::Value*>& inputs);
  void bind_results(const JsonAt& node, const std::vector<torch::jit::Value*>& results);
  void note_unknown(const std::string& op, const JsonAt& node);
  void poison_outputs(const JsonAt& node);
  torch::jit::Value* number_as_tensor(torch::jit::Value* number);

  torch::jit::Graph& graph_;
  std::string file_;
  std::map<std::string, torch::jit::Value*> tensors_, symbols_;
  std::vector<CustomOpUse> unknown_;
  ModuleCallStacks call_stacks_;
};

}  // namespace t2o::core::program
