#include "torch2onnx/core/dtype_table.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <cctype>

namespace t2o::core {

InputSpec parse_input_spec(const std::string& text) {
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

}  // namespace t2o::core
