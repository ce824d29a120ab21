#include "common/locations.hpp"

namespace t2o::core {

std::string location_of(const torch::jit::Node* node) {
  // Module path from the inlined call stack ("layer1.0.conv1 (Conv2d)"), then the source position.
  std::string module_path, module_class;
  if (auto cs = node->callstack()) {
    for (const auto& entry : (*cs)->vec()) {
      const auto& info = std::get<2>(entry);
      if (!info) continue;
      const std::string& name = info->instance_name();
      if (name.empty()) continue;
      if (!module_path.empty()) module_path += ".";
      module_path += name;
      if (info->class_type()) {
        auto qual = info->class_type()->name();
        module_class = qual ? qual->name() : "";
      }
    }
  }
  if (module_path.empty()) {
    // Traced graphs carry the module path in the scope name.
    std::string scope = const_cast<torch::jit::Node*>(node)->scopeName();
    if (!scope.empty()) module_path = scope;
  }
  std::string source;
  auto range = node->sourceRange();
  if (auto flc = range.file_line_col()) {
    source = std::get<0>(*flc) + ":" + std::to_string(std::get<1>(*flc));
  }
  std::string out;
  if (!module_path.empty()) out = module_path + (module_class.empty() ? "" : " (" + module_class + ")");
  if (!source.empty()) out += (out.empty() ? "" : ", ") + source;
  if (out.empty()) out = "top level of forward()";
  return out;
}

}  // namespace t2o::core
