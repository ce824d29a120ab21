// Which symbolic converts a TorchScript node, decided once per op kind and target: export, check
// and the fallback modes all ask here.
#ifndef TORCH2ONNX_CORE_RESOLUTION_HPP
#define TORCH2ONNX_CORE_RESOLUTION_HPP

#include "convert/graph_builder.hpp"

#include <torch2onnx/registry.hpp>
#include <torch/script.h>

#include <optional>
#include <string>
#include <unordered_map>

namespace t2o::core {

// Why a node is not converted (check's JSON "reason" is reason_name()).
enum class Unconvertible {
  None,             // converted
  NoSymbolic,       // no pack converts this op
  NeedsOpset,       // a pack converts it from a higher opset of its domain (min_opset)
  SymbolicRefused,  // the symbolic refused these arguments (T2O_UNSUPPORTED)
  SymbolicFailed,   // the symbolic failed
  UnknownCustomOp,  // a custom op no pack declares (libtorch cannot load the model)
};
const char* reason_name(Unconvertible reason);

struct Resolution {
  const t2o::registry::Symbolic* symbolic = nullptr;
  Unconvertible reason = Unconvertible::None;  // NoSymbolic or NeedsOpset when symbolic is null
  std::optional<int64_t> min_opset;            // NeedsOpset: the lowest version that converts it
  std::string domain;                          // NeedsOpset: the domain whose version is too low
  std::string message;                         // "needs --opset 11", "no pack converts it"
};

class Resolver {
 public:
  Resolver(const t2o::registry::Registry& registry, const GraphBuilder& graph) : registry_(registry), graph_(graph) {}
  // Depends only on the node's kind and the target opsets: memoized per kind.
  const Resolution& resolve(const torch::jit::Node* node);
  // "opset9", or the pack's name, of a symbolic.
  std::string pack_of(const t2o::registry::Symbolic* symbolic) const;
  std::string pack_file_of(const t2o::registry::Symbolic* symbolic) const;

 private:
  const t2o::registry::Registry& registry_;
  const GraphBuilder& graph_;
  std::unordered_map<c10::Symbol, Resolution> memo_;
};

}  // namespace t2o::core

#endif
