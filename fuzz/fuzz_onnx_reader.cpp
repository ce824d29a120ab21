// libFuzzer target: the ONNX reader of `show` and `verify --onnx` (format_onnx_file, onnx_inputs,
// onnx_outputs). Any bytes as a .onnx file must give the text/the names or throw ExportError: no
// overflow while printing dims or constants, no recursion beyond protobuf's own nesting limit.
#include <torch2onnx/core/verify.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/dev/shm/t2o_fuzz_onnx_" + std::to_string(getpid()) + ".onnx";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    (void)t2o::core::format_onnx_file(path);
    (void)t2o::core::onnx_inputs(path);
    (void)t2o::core::onnx_outputs(path);
  } catch (const t2o::core::ExportError&) {
  }
  std::remove(path.c_str());  // no file per process left in /dev/shm
  return 0;
}
