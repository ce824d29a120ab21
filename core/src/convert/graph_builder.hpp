// Stage 3 of a conversion: the ONNX graphs being built. A stack: the model's main graph at the
// bottom, above it the subgraphs (If branches, Loop bodies) open while a symbolic converts a block.
// Owns the names (unique across the whole model, as ONNX's single static assignment needs), the
// opset imports, and the provenance of every ONNX node.
#ifndef TORCH2ONNX_CORE_GRAPH_BUILDER_HPP
#define TORCH2ONNX_CORE_GRAPH_BUILDER_HPP

#include "torch2onnx/core/exporter.hpp"

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace t2o::core {

// Which TorchScript node and pack made an ONNX node.
struct NodeOrigin {
  std::string torch_op;  // "aten::gelu"
  std::string location;  // "encoder.layers.0 (TransformerEncoderLayer), code/__torch__.py:12"
  std::string pack;      // "opset9", or "fallback" for --operator-export-type nodes
  const void* torch_node = nullptr;  // the torch::jit::Node (valid while its graph lives; verify)
  std::string describe() const {
    return torch_op + " at " + location + (pack == "fallback" ? " (fallback)" : " (pack " + pack + ")");
  }
};
using Provenance = std::unordered_map<std::string, NodeOrigin>;  // ONNX node name -> origin

class GraphBuilder {
 public:
  explicit GraphBuilder(const ExportOptions& options);

  onnx::GraphProto& current() { return *stack_.back(); }
  onnx::GraphProto& main() { return *stack_.front(); }
  size_t depth() const { return stack_.size(); }
  // Opens a subgraph: nodes emitted from now on go into it, until close_subgraph().
  void open_subgraph(const std::string& name);
  // Closes the innermost subgraph; returns its handle (for a GRAPH attribute).
  int32_t close_subgraph();
  // The closed subgraph `handle`, moved out (each is attached to exactly one node).
  onnx::GraphProto take_subgraph(int32_t handle);
  bool valid_subgraph(int32_t handle) const {
    return handle >= 0 && (size_t)handle < closed_.size() && closed_[(size_t)handle] != nullptr;
  }

  std::string unique_name(const std::string& hint);
  bool name_taken(const std::string& name) const { return names_.count(name) > 0; }
  bool reserve_name(const std::string& name) { return names_.insert(name).second; }

  int64_t opset_of(const std::string& domain) const;
  void require_opset(const std::string& domain, int64_t version);  // throws ExportError on a clash
  void import_domain(const std::string& domain, int64_t version);  // if not imported yet
  const std::map<std::string, int64_t>& opsets() const { return opsets_; }

  void record_origin(const std::string& onnx_node, NodeOrigin origin) { provenance_[onnx_node] = std::move(origin); }
  Provenance& provenance() { return provenance_; }
  size_t onnx_nodes = 0;  // nodes emitted into any graph

 private:
  const ExportOptions& options_;
  std::vector<std::unique_ptr<onnx::GraphProto>> stack_;
  std::vector<std::unique_ptr<onnx::GraphProto>> closed_;
  std::unordered_set<std::string> names_;
  uint64_t name_counter_ = 0;
  std::map<std::string, int64_t> opsets_;  // domain -> version
  Provenance provenance_;
};

}  // namespace t2o::core

#endif
