// libFuzzer target: the .npy and .pb readers of verify --inputs (read_tensor_file). The first byte
// chooses the format; any bytes must give a tensor or throw ExportError, never allocate what a header
// claims beyond the bytes present.
#include <torch2onnx/core/verify.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const std::string base = "/dev/shm/t2o_fuzz_tensor_" + std::to_string(getpid());
  const std::string path = base + (data[0] & 1 ? ".npy" : ".pb");
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data + 1, 1, size - 1, f);
  std::fclose(f);
  try {
    (void)t2o::core::read_tensor_file(path);
  } catch (const t2o::core::ExportError&) {
  }
  std::remove(path.c_str());
  return 0;
}
