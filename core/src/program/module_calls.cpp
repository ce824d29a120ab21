#include "program/module_calls.hpp"

#include <ATen/core/jit_type.h>

#include <memory>

// libtorch defines this constructor (jit/ir/scope.cpp) but does not export it: ModuleInstanceInfo has
// no TORCH_API, in 1.13 as in 2.14. This definition is libtorch's own.
torch::jit::ModuleInstanceInfo::ModuleInstanceInfo(c10::ClassTypePtr module_type, std::string instance_name)
    : module_type_(std::move(module_type)), instance_name_(std::move(instance_name)) {}

namespace t2o::core::program {

std::vector<ModuleCall> parse_module_calls(const std::string& text) {
  std::vector<ModuleCall> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    const std::string entry = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    // Nodes export inserted itself (asserts, sym_size) carry a placeholder stack.
    const size_t first = entry.find(','), last = entry.rfind(',');
    if (!entry.empty() && entry.rfind("_empty_nn_module_stack", 0) != 0 && first != std::string::npos &&
        last != first)
      out.push_back({entry.substr(0, first), clean_module_path(entry.substr(first + 1, last - first - 1)),
                     entry.substr(last + 1)});
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::string clean_module_path(std::string p) {
  // 2.6 roots the path at forward()'s own name for self: L['self'].encoder, L['s'].encoder.
  if (p.rfind("L['", 0) == 0) {
    auto close = p.find("']");
    p = close == std::string::npos ? p : p.substr(close + 2);
    if (!p.empty() && p[0] == '.') p = p.substr(1);
  }
  std::string clean;
  for (char c : p) {
    if (c == '[') {
      clean += '.';
      continue;
    }
    if (c == ']' || c == '\'') continue;
    clean += c;
  }
  return clean;
}

std::string root_module_type(const nlohmann::json& nodes) {
  if (!nodes.is_array()) return "";
  for (const auto& node : nodes) {
    auto meta = node.find("metadata");
    if (meta == node.end() || !meta->is_object()) continue;
    auto stack = meta->find("nn_module_stack");
    if (stack == meta->end() || !stack->is_string()) continue;
    for (const auto& call : parse_module_calls(stack->get<std::string>()))
      if (call.path.empty() && !call.type.empty()) return call.type;
  }
  return "";
}

const ModuleCallStacks::Frame& ModuleCallStacks::frame(const std::string& chain, const ModuleCall& call,
                                                       const std::string& parent_path) {
  auto it = frames_.find(chain);
  if (it != frames_.end()) return it->second;
  // TorchScript's class name for torch.typename's: torch2onnx's readers of call stacks (locations,
  // local functions) turn "__torch__.X" back into X.
  auto& [type, forward] = types_[call.type];
  if (!type) {
    type = c10::ClassType::create(c10::QualifiedName("__torch__." + call.type), {}, /*is_module=*/true);
    forward = unit_->create_function(c10::QualifiedName("__torch__.torch2onnx.calls." + call.type + ".forward"),
                                     std::make_shared<torch::jit::Graph>());
  }
  // A frame names the module by its attribute in the caller, as a scripted module's call stack does.
  std::string name = call.path;
  if (!parent_path.empty() && name.rfind(parent_path + ".", 0) == 0) name = name.substr(parent_path.size() + 1);
  auto source = std::make_shared<torch::jit::Source>("<call of " + (call.path.empty() ? call.key : call.path) + ">");
  Frame f{torch::jit::SourceRange(source, 0, source->size()), torch::jit::ModuleInstanceInfo(type, name), forward};
  return frames_.emplace(chain, std::move(f)).first->second;
}

std::optional<torch::jit::InlinedCallStackPtr> ModuleCallStacks::of(const std::vector<ModuleCall>& calls) {
  // The exported module's own entry is the root frame readers add themselves, as for TorchScript.
  std::vector<const ModuleCall*> frames;
  for (const auto& c : calls)
    if (!c.path.empty()) frames.push_back(&c);
  if (frames.empty()) return std::nullopt;
  std::string chain;
  for (const auto* c : frames) chain += c->key + "/";
  if (auto it = stacks_.find(chain); it != stacks_.end()) return it->second;
  // Built innermost first: an InlinedCallStack points from a call to the calls inside it.
  std::vector<const Frame*> made;
  std::string prefix, parent;
  for (const auto* c : frames) {
    prefix += c->key + "/";
    made.push_back(&frame(prefix, *c, parent));
    parent = c->path;
  }
  torch::jit::InlinedCallStackPtr stack;
  for (size_t k = made.size(); k-- > 0;) {
    const Frame& f = *made[k];
    stack = stack ? c10::make_intrusive<torch::jit::InlinedCallStack>(stack, f.forward, f.range, f.info)
                  : c10::make_intrusive<torch::jit::InlinedCallStack>(f.forward, f.range, f.info);
  }
  stacks_.emplace(chain, stack);
  return stack;
}

}  // namespace t2o::core::program
