#include "convert/graph_builder.hpp"

namespace t2o::core {

GraphBuilder::GraphBuilder(const ExportOptions& options) : options_(options) {
  stack_.push_back(std::make_unique<onnx::GraphProto>());
  opsets_[""] = options.opset;
  for (const auto& [domain, version] : options.custom_opsets)
    if (!domain.empty() && domain != "ai.onnx") opsets_[domain] = version;
}

void GraphBuilder::open_subgraph(const std::string& name) {
  stack_.push_back(std::make_unique<onnx::GraphProto>());
  stack_.back()->set_name(unique_name(name));
}

int32_t GraphBuilder::close_subgraph() {
  if (stack_.size() < 2) throw ExportError("internal: no subgraph is open");
  closed_.push_back(std::move(stack_.back()));
  stack_.pop_back();
  return (int32_t)(closed_.size() - 1);
}

onnx::GraphProto GraphBuilder::take_subgraph(int32_t handle) {
  if (!valid_subgraph(handle)) throw ExportError("graph handle " + std::to_string(handle) + " is not a closed subgraph (or was attached already)");
  onnx::GraphProto g = std::move(*closed_[(size_t)handle]);
  closed_[(size_t)handle].reset();
  return g;
}

std::string GraphBuilder::unique_name(const std::string& hint) {
  std::string base = hint.empty() ? "v" : hint;
  if (names_.insert(base).second) return base;
  for (;;) {
    std::string name = base + "_" + std::to_string(++name_counter_);
    if (names_.insert(name).second) return name;
  }
}

int64_t GraphBuilder::opset_of(const std::string& domain) const {
  if (domain.empty() || domain == "ai.onnx") return options_.opset;
  auto it = opsets_.find(domain);
  return it == opsets_.end() ? 0 : it->second;
}

void GraphBuilder::require_opset(const std::string& domain, int64_t version) {
  if (domain.empty() || domain == "ai.onnx") {
    if (version > options_.opset)
      throw ExportError("needs opset " + std::to_string(version) + " of the default domain; target is " +
                        std::to_string(options_.opset));
    return;
  }
  auto it = opsets_.find(domain);
  if (it != opsets_.end() && it->second != version && it->second != 1)
    throw ExportError("domain " + domain + " required at version " + std::to_string(version) + " and " +
                      std::to_string(it->second));
  opsets_[domain] = version;
}

void GraphBuilder::import_domain(const std::string& domain, int64_t version) {
  if (domain.empty() || domain == "ai.onnx") return;
  if (!opsets_.count(domain)) opsets_[domain] = version;
}

}  // namespace t2o::core
