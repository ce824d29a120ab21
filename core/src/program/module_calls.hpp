// A program node's module calls (`nn_module_stack`) as the inlined call stack TorchScript gives a
// node of a scripted submodule's forward(): one frame per call, with the module's attribute name
// and class (ModuleInstanceInfo). Everything that reads call stacks then works for programs as it
// does for TorchScript: locations ("l0.mha (MultiheadAttention)"), --export-modules-as-functions.
#pragma once

#include <nlohmann/json.hpp>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/ir/scope.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace t2o::core::program {

// One entry of `nn_module_stack`: "L__self___l0@1,l0,__main__.Block" (2.6 and 2.14 alike).
struct ModuleCall {
  std::string key;   // identity of the call: "L__self___l0", "L__self___l0@1" for its second call
  std::string path;  // the module's fqn: "l0.mha" ("" for the exported module itself)
  std::string type;  // its class as torch.typename gives it: "torch.nn.modules.linear.Linear"
};

// The entries of `text`, outermost first; entries export added itself (asserts, sym_size) skipped.
std::vector<ModuleCall> parse_module_calls(const std::string& text);

// Dynamo's spelling of a module path ("L['self'].encoder.layers[0]") as the fqn users know.
std::string clean_module_path(std::string path);

// The class of the exported module: the root entry's (path "") of the first node that has one
// (`nodes`: the graph's nodes as JSON); "" when none has.
std::string root_module_type(const nlohmann::json& nodes);

class ModuleCallStacks {
 public:
  // unit: where each frame's (empty) forward() lives; a call stack's frames must name a function
  // (libtorch's interpreter reads its name when it reports an error), and must outlive the graph.
  explicit ModuleCallStacks(std::shared_ptr<torch::jit::CompilationUnit> unit) : unit_(std::move(unit)) {}

  // The call stack of a node whose calls are `calls` (the root entry left out); nullopt for a node of
  // the exported module's own forward(). Nodes of one call share its frame.
  std::optional<torch::jit::InlinedCallStackPtr> of(const std::vector<ModuleCall>& calls);

 private:
  struct Frame {
    torch::jit::SourceRange range;  // one source per call: what tells two calls apart
    torch::jit::ModuleInstanceInfo info;
    torch::jit::Function* forward = nullptr;
  };
  const Frame& frame(const std::string& chain, const ModuleCall& call, const std::string& parent_path);
  std::shared_ptr<torch::jit::CompilationUnit> unit_;
  std::map<std::string, Frame> frames_;                            // call chain -> its frame
  std::map<std::string, std::pair<c10::ClassTypePtr, torch::jit::Function*>> types_;  // class name -> type, forward
  std::map<std::string, torch::jit::InlinedCallStackPtr> stacks_;  // call chain -> stack
};

}  // namespace t2o::core::program
