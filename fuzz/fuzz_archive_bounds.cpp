// libFuzzer target: the archive bounds (check_archive_bounds): any bytes as a .pt must pass or be
// refused with ExportError, in time and memory proportional to their size.
#include "load/archive_bounds.hpp"

#include <torch2onnx/core/exporter.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A new name each time: check_archive_bounds remembers the last file it passed (path, size, mtime).
  static unsigned long n = 0;
  const std::string path = "/dev/shm/t2o_fuzz_archive_" + std::to_string(getpid()) + "_" + std::to_string(n++ % 2) + ".pt";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    t2o::core::check_archive_bounds(path);
  } catch (const t2o::core::ExportError&) {
  }
  std::remove(path.c_str());  // no file per process left in /dev/shm
  return 0;
}
