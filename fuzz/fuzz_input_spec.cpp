// libFuzzer target: the --input spec grammar (parse_input_spec, flatten_input_spec). Any text must
// parse or throw ExportError; the result flattens without recursion trouble.
#include <torch2onnx/core/exporter.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto spec = t2o::core::parse_input_spec(text);
    (void)t2o::core::flatten_input_spec(spec);
  } catch (const t2o::core::ExportError&) {
  }
  return 0;
}
