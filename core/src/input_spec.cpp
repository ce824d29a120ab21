#include "torch2onnx/core/dtype_table.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <cctype>

namespace t2o::core {

InputSpec parse_input_spec(const std::string& text) {
  // `none`: an Optional forward() argument given None (the converter binds it as a constant).
  if (text == "none") return InputSpec{"none", {}, text};
  auto bad = [&](const std::string& why) -> ExportError {
    return ExportError("bad --input '" + text + "': " + why + " (expected TYPE[DIMS], e.g. float32[1,3,224,224] or int64[])");
  };
  auto open = text.find('[');
  if (open == std::string::npos || text.empty() || text.back() != ']') throw bad("no [DIMS]");
  InputSpec spec;
  spec.text = text;
  spec.dtype = text.substr(0, open);
  if (!dtype_from_name(spec.dtype)) throw bad("unknown element type '" + spec.dtype + "'; known: " + dtype_names());
  std::string body = text.substr(open + 1, text.size() - open - 2);
  size_t pos = 0;
  while (pos < body.size()) {
    size_t comma = body.find(',', pos);
    std::string item = body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    // Trim spaces.
    while (!item.empty() && std::isspace((unsigned char)item.front())) item.erase(item.begin());
    while (!item.empty() && std::isspace((unsigned char)item.back())) item.pop_back();
    if (item.empty()) throw bad("empty dimension");
    for (char c : item)
      if (!std::isdigit((unsigned char)c)) throw bad("dimension '" + item + "' is not a non-negative integer");
    if (item.size() > 12) throw bad("dimension '" + item + "' is too large");
    spec.dims.push_back(std::stoll(item));
    if (comma == std::string::npos) break;
    pos = comma + 1;
    if (pos == body.size()) throw bad("trailing comma");
  }
  return spec;
}

OperatorExportType parse_operator_export_type(const std::string& text) {
  if (text == "onnx") return OperatorExportType::Onnx;
  if (text == "aten-fallback" || text == "onnx_aten_fallback") return OperatorExportType::AtenFallback;
  if (text == "fallthrough" || text == "onnx_fallthrough") return OperatorExportType::Fallthrough;
  throw ExportError("bad --operator-export-type '" + text + "' (expected onnx, aten-fallback or fallthrough)");
}

DynamicAxes parse_dynamic_axes(const std::string& text) {
  auto bad = [&](const std::string& why) -> ExportError {
    return ExportError("bad --dynamic-axes '" + text + "': " + why +
                       " (expected NAME=AXES, e.g. input_ids=0,1 or input_ids=0:batch,1:seq)");
  };
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw bad("no NAME=");
  DynamicAxes out;
  out.name = text.substr(0, eq);
  std::string body = text.substr(eq + 1);
  if (body.empty()) throw bad("no axes");
  size_t pos = 0;
  while (pos <= body.size()) {
    size_t comma = body.find(',', pos);
    std::string item = body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    std::string axis = item, symbol;
    auto colon = item.find(':');
    if (colon != std::string::npos) {
      axis = item.substr(0, colon);
      symbol = item.substr(colon + 1);
      if (symbol.empty()) throw bad("empty dim name in '" + item + "'");
      for (char c : symbol)
        if (!std::isalnum((unsigned char)c) && c != '_') throw bad("dim name '" + symbol + "' is not an identifier");
    }
    if (axis.empty() || axis.size() > 6) throw bad("axis '" + axis + "' is not a non-negative integer");
    for (char c : axis)
      if (!std::isdigit((unsigned char)c)) throw bad("axis '" + axis + "' is not a non-negative integer");
    int64_t a = std::stoll(axis);
    for (const auto& [seen, _] : out.axes)
      if (seen == a) throw bad("axis " + axis + " given twice");
    out.axes.emplace_back(a, symbol);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::vector<std::vector<int64_t>> dynamic_run_shapes(const std::vector<InputSpec>& dynamic_inputs,
                                                     const std::vector<InputSpec>& specs,
                                                     const std::vector<std::vector<int64_t>>& shapes,
                                                     const std::vector<std::vector<int64_t>>& default_sizes) {
  if (dynamic_inputs.empty()) return default_sizes;
  if (dynamic_inputs.size() != specs.size())
    throw ExportError(std::to_string(dynamic_inputs.size()) + " --dynamic-input given for " +
                      std::to_string(specs.size()) + " --input; give one per input, in order");
  std::vector<std::vector<int64_t>> out;
  for (size_t i = 0; i < specs.size(); ++i) {
    const InputSpec& d = dynamic_inputs[i];
    auto bad = [&](const std::string& why) {
      return ExportError("--dynamic-input " + d.text + " (input " + std::to_string(i) + ", --input " + specs[i].text +
                         "): " + why);
    };
    if (d.dtype != specs[i].dtype) throw bad("another element type");
    if (d.dims.size() != shapes[i].size()) throw bad("another rank");
    for (size_t a = 0; a < d.dims.size(); ++a) {
      bool dynamic = default_sizes[i][a] != shapes[i][a];
      if (!dynamic && d.dims[a] != shapes[i][a])
        throw bad("axis " + std::to_string(a) + " is not in --dynamic-axes but has another size");
      if (dynamic && d.dims[a] == shapes[i][a])
        throw bad("dynamic axis " + std::to_string(a) + " must take another size than in --input");
    }
    out.push_back(d.dims);
  }
  return out;
}

}  // namespace t2o::core
