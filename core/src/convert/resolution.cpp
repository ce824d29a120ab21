#include "convert/resolution.hpp"

#include <climits>

namespace t2o::core {

const char* reason_name(Unconvertible reason) {
  switch (reason) {
    case Unconvertible::None: return "converted";
    case Unconvertible::NoSymbolic: return "no_symbolic";
    case Unconvertible::NeedsOpset: return "needs_opset";
    case Unconvertible::SymbolicRefused: return "symbolic_refused";
    case Unconvertible::SymbolicFailed: return "symbolic_failed";
    case Unconvertible::UnknownCustomOp: return "unknown_custom_op";
  }
  return "?";
}

const Resolution& Resolver::resolve(const torch::jit::Node* node) {
  auto it = memo_.find(node->kind());
  if (it != memo_.end()) return it->second;
  Resolution r;
  const std::string kind = node->kind().toQualString();
  r.symbolic = registry_.lookup(kind, "", graph_.opset_of(""));
  // Ops of custom domains: registered under the domain whose opset selects them. A domain whose
  // version is set (--custom-opset) dispatches at that version; otherwise the newest registration.
  if (!r.symbolic) {
    for (const auto& domain : registry_.domains_of(kind)) {
      if (domain.empty()) continue;
      auto v = graph_.opset_of(domain);
      if ((r.symbolic = registry_.lookup(kind, domain, v ? v : INT64_MAX))) break;
    }
  }
  if (!r.symbolic) {
    r.reason = Unconvertible::NoSymbolic;
    r.message = "no pack converts it";
    // A higher version of some domain would convert it: say which.
    for (const auto& domain : registry_.domains_of(kind)) {
      auto min = registry_.min_opset(kind, domain);
      if (!min || *min <= graph_.opset_of(domain)) continue;
      r.reason = Unconvertible::NeedsOpset;
      r.min_opset = min;
      r.domain = domain;
      r.message = domain.empty() ? "needs --opset " + std::to_string(*min)
                                 : "needs --custom-opset " + domain + "=" + std::to_string(*min);
      break;
    }
  }
  return memo_.emplace(node->kind(), std::move(r)).first->second;
}

std::string Resolver::pack_of(const t2o::registry::Symbolic* symbolic) const {
  return registry_.plugins().size() > symbolic->plugin_index ? registry_.plugins()[symbolic->plugin_index].name
                                                             : std::string("(built in)");
}

std::string Resolver::pack_file_of(const t2o::registry::Symbolic* symbolic) const {
  if (registry_.plugins().size() <= symbolic->plugin_index) return "";
  std::string file = registry_.plugins()[symbolic->plugin_index].path;
  return file.substr(file.find_last_of('/') + 1);
}

}  // namespace t2o::core
