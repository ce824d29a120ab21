// One conversion, as the stages that make it: the example runs' types, the value table, the graph
// builder, the resolution of symbolics, and the walk that hands each node to its symbolic. The
// host API (host_api.cpp) gives symbolics access to exactly these.
#ifndef TORCH2ONNX_CORE_SESSION_HPP
#define TORCH2ONNX_CORE_SESSION_HPP

#include "run/example_run.hpp"
#include "convert/graph_builder.hpp"
#include "convert/resolution.hpp"
#include "common/type_table.hpp"
#include "convert/value_table.hpp"

#include <torch2onnx/plugin.h>
#include <torch2onnx/registry.hpp>

#include <exception>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace t2o::core {

// One node that could not be converted (check mode and the fallback modes).
struct NodeFailure {
  std::string op, overload, schema, message, location;
  Unconvertible reason = Unconvertible::NoSymbolic;
  std::optional<int64_t> min_opset;
};

// A symbolic's failure on one node (what: the full line; detail: the symbolic's own words).
struct NodeError : ExportError {
  NodeError(const std::string& line, std::string detail, bool refused)
      : ExportError(line), message(std::move(detail)), unsupported(refused) {}
  std::string message;
  bool unsupported;
};

struct Session {
  Session(const t2o::registry::Registry& registry, const ExportOptions& options, PreparedModel& model)
      : registry(registry), options(options), model(model), graph(options), values(graph, types),
        resolver(registry, graph) {}

  const t2o::registry::Registry& registry;
  const ExportOptions& options;
  PreparedModel& model;
  TypeTable types;
  DynamicAxesPlan plan;
  GraphBuilder graph;
  ValueTable values;
  Resolver resolver;

  bool check_mode = false;  // keep going after failures, recording them
  std::vector<NodeFailure> failures;
  std::unordered_set<const torch::jit::Value*> tainted;  // outputs of nodes that failed (check mode)
  std::vector<std::string> input_names;                  // the ONNX graph's inputs
  // A quantized graph input in torch.onnx's form (not --dequantized-io): by forward() input index, the
  // names of its three ONNX inputs (integer tensor, scale, zero point) and the integer type.
  struct QuantizedInput {
    std::string value, scale, zero_point;
    t2o_value value_handle = T2O_NO_VALUE, scale_handle = T2O_NO_VALUE, zero_point_handle = T2O_NO_VALUE;
  };
  std::map<size_t, QuantizedInput> quantized_inputs;
  // Quantized values whose grid is a quantized input's, known only at run time: the ONNX float scale
  // and the zero point in the integer type (convert/quantized_values.cpp).
  struct Grid {
    t2o_value scale = T2O_NO_VALUE, zero_point = T2O_NO_VALUE;
  };
  std::unordered_map<const torch::jit::Value*, Grid> run_time_grids;
  size_t torch_nodes = 0, fallback_nodes = 0;

  void warn(const std::string& message) const {
    if (options.warn) options.warn(message);
  }
  static const t2o_host_api* host_api();  // host_api.cpp
};

}  // namespace t2o::core

// The opaque context a symbolic receives: one call on one TorchScript node.
struct t2o_ctx {
  t2o::core::Session* session = nullptr;
  torch::jit::Node* node = nullptr;
  const t2o::registry::Symbolic* symbolic = nullptr;
  std::string error;
  std::string location;  // computed once per node
  std::vector<std::string> borrowed;  // strings handed out for the duration of the call
  int open_subgraphs = 0;             // opened by this call and not closed yet
  std::exception_ptr nested_error;    // a node inside a block failed: rethrown as it is
};

#endif
