// libFuzzer target: the TorchScript archive scan and load path (load_torchscript: our magic and
// bounds checks, the record scan, then libtorch's reader and torch::jit::load). Any input must give a
// module or one ExportError; another exception escaping, a crash or an allocation beyond libFuzzer's
// limit inside libtorch is a finding, fixed by tightening our checks in front of it.
//
// Input: the first byte chooses the form of the rest.
//   bit 0 clear: the bytes are the file itself (the zip structure, its sizes and CRCs mutate).
//   bit 0 set:   the bytes are records, "@@@NAME\n" then its contents up to the next "\n@@@", which
//                the target stores in a zip with correct CRCs, so mutations reach the pickles, the
//                code and the version record behind miniz's checks
//                (fuzz/corpus/torchscript_load/README.md; fuzz/pt_to_records.py makes seeds).
//   bit 1 set:   lazy weights (large records stay in the file), as export loads; clear: eager, as verify.
#include "load/model_loader.hpp"

#include <torch2onnx/core/exporter.hpp>
#include <torch2onnx/registry.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace {

uint32_t crc32(std::string_view bytes) {
  static uint32_t table[256];
  static bool ready = false;
  if (!ready) {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    ready = true;
  }
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void put(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(char((v >> (8 * i)) & 0xFF));
}

// A zip of stored (uncompressed) members, as torch.jit.save writes them (without its alignment padding).
std::string stored_zip(const std::vector<std::pair<std::string_view, std::string_view>>& records) {
  std::string out, dir;
  for (const auto& [name, body] : records) {
    const uint32_t crc = crc32(body);
    const uint64_t offset = out.size();
    put(out, 0x04034b50, 4); put(out, 20, 2); put(out, 0, 2); put(out, 0, 2); put(out, 0, 4);
    put(out, crc, 4); put(out, body.size(), 4); put(out, body.size(), 4);
    put(out, name.size(), 2); put(out, 0, 2);
    out.append(name); out.append(body);
    put(dir, 0x02014b50, 4); put(dir, 20, 2); put(dir, 20, 2); put(dir, 0, 2); put(dir, 0, 2); put(dir, 0, 4);
    put(dir, crc, 4); put(dir, body.size(), 4); put(dir, body.size(), 4);
    put(dir, name.size(), 2); put(dir, 0, 2); put(dir, 0, 2); put(dir, 0, 2); put(dir, 0, 2); put(dir, 0, 4);
    put(dir, offset, 4);
    dir.append(name);
  }
  const uint64_t dir_offset = out.size();
  out += dir;
  put(out, 0x06054b50, 4); put(out, 0, 2); put(out, 0, 2); put(out, records.size(), 2); put(out, records.size(), 2);
  put(out, dir.size(), 4); put(out, dir_offset, 4); put(out, 0, 2);
  return out;
}

std::vector<std::pair<std::string_view, std::string_view>> split_records(std::string_view text) {
  std::vector<std::pair<std::string_view, std::string_view>> records;
  const std::string_view mark = "@@@";
  if (text.substr(0, 3) != mark) return records;
  size_t at = 0;
  while (at != std::string_view::npos && records.size() < 256) {
    const size_t name_end = text.find('\n', at + 3);
    if (name_end == std::string_view::npos) break;
    const size_t next = text.find("\n@@@", name_end + 1);
    const size_t body_end = next == std::string_view::npos ? text.size() : next;
    records.emplace_back(text.substr(at + 3, name_end - at - 3), text.substr(name_end + 1, body_end - name_end - 1));
    at = next == std::string_view::npos ? next : next + 1;
  }
  return records;
}

}  // namespace

// kernel_libraries.cpp finds the default kernel libraries next to the binary holding the core
// (library.cpp, which brings the whole library API): this target loads none, the program's directory will do.
namespace t2o::core {
std::string core_binary_dir() { return t2o::registry::executable_dir(); }
}  // namespace t2o::core

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  // A new name each time: check_archive_bounds remembers the last file it passed (path, size, mtime).
  static unsigned long n = 0;
  const std::string path = "/dev/shm/t2o_fuzz_load_" + std::to_string(getpid()) + "_" + std::to_string(n++ % 2) + ".pt";
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string file = data[0] & 1 ? stored_zip(split_records(rest)) : std::string(rest);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(file.data(), 1, file.size(), f);
  std::fclose(f);
  try {
    (void)t2o::core::load_torchscript(path, (data[0] & 2) != 0);
  } catch (const t2o::core::ExportError&) {
  }
  std::remove(path.c_str());
  return 0;
}
