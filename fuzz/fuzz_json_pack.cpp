// libFuzzer target: the JSON pack loader (json_pack::parse_file, which never throws).
#include "json_pack.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/dev/shm/t2o_fuzz_pack_" + std::to_string(getpid()) + ".json";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  (void)t2o::registry::json_pack::parse_file(path);
  std::remove(path.c_str());  // no file per process left in /dev/shm
  return 0;
}
