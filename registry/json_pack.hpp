// Declarative op packs: a JSON file mapping TorchScript ops to ONNX node templates (json_pack.cpp).
// Private to the registry.
#ifndef TORCH2ONNX_REGISTRY_JSON_PACK_HPP
#define TORCH2ONNX_REGISTRY_JSON_PACK_HPP

#include <torch2onnx/registry.hpp>

#include <string>
#include <vector>

namespace t2o::registry::json_pack {

struct Parsed {
  std::string error;  // "" when the file is a valid pack; else "KEY: reason" or "line L, column C: reason"
  std::string name;
  std::string version;
  std::vector<std::string> schemas;
  std::vector<Symbolic> symbolics;  // fn = the template interpreter, user_data = its (never freed) template
};

// Reads and validates path. Never throws.
Parsed parse_file(const std::string& path);

}  // namespace t2o::registry::json_pack

#endif
