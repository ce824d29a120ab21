// The core's public entry points: load a TorchScript file, convert it through the loaded packs,
// write a checked ONNX file. Everything here reports failure as t2o::core::ExportError, whose
// message is one line saying what went wrong and where.
#ifndef TORCH2ONNX_CORE_EXPORTER_HPP
#define TORCH2ONNX_CORE_EXPORTER_HPP

#include <torch2onnx/registry.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace t2o::core {

class ExportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr int64_t kMinOpset = 9;
constexpr int64_t kMaxOpset = 17;  // the highest opset ONNX 1.12's checker knows
constexpr int64_t kDefaultOpset = 17;

// One forward() argument: element type name and example dims ("float32[1,3,224,224]").
struct InputSpec {
  std::string dtype;  // as in dtype_table(): "float32", "int64", ...
  std::vector<int64_t> dims;
  std::string text;  // as the user wrote it
};
// Parses "TYPE[D0,D1,...]"; throws ExportError naming the spec on malformed input.
InputSpec parse_input_spec(const std::string& text);

// Axes of one input or output that may take other sizes at run time: "NAME=0,1" or "NAME=0:batch,1:seq".
struct DynamicAxes {
  std::string name;  // an input or output name
  std::vector<std::pair<int64_t, std::string>> axes;  // axis, symbolic dim name ("" = automatic)
};
// Parses "NAME=AXES"; throws ExportError naming the spec on malformed input.
DynamicAxes parse_dynamic_axes(const std::string& text);

struct ExportOptions {
  int64_t opset = kDefaultOpset;
  std::vector<InputSpec> inputs;
  std::vector<std::string> input_names;   // empty: forward()'s argument names
  std::vector<std::string> output_names;  // empty: output_0, output_1, ...
  std::vector<DynamicAxes> dynamic_axes;
  std::string producer_version = "0.1.0";
  // Target version of custom ONNX domains (--custom-opset DOMAIN=VERSION): selects the symbolics
  // registered for that domain as --opset does for the default domain, and goes into opset_import.
  std::map<std::string, int64_t> custom_opsets;
  // Called for warnings from symbolics and the core (one line each).
  std::function<void(const std::string&)> warn;
};

struct ExportStats {
  size_t torch_nodes = 0;
  size_t onnx_nodes = 0;
  size_t initializers = 0;
  size_t initializer_bytes = 0;
};

// Converts model_path to out_path. No partial file is ever left at out_path.
ExportStats export_model(const std::string& model_path, const std::string& out_path, const ExportOptions& options,
                         const t2o::registry::Registry& registry);

}  // namespace t2o::core

#endif
