// libFuzzer target: the torch.export front end (core/src/program/: load_exported_program), from the
// .pt2 container through the program's JSON, its signature, symbolic sizes, state (raw weight records,
// torch.save pickles) and sample inputs to the TorchScript graph built from its nodes. Any input must
// give a program or one ExportError; another exception escaping, a crash, a read outside the file's
// mapping, UB or an allocation beyond libFuzzer's limit is a finding.
//
// Input: the first byte chooses the form of the rest.
//   bit 0 clear: the bytes are the .pt2 file itself (the zip structure, its sizes and offsets mutate).
//   bit 0 set:   the bytes are records, "@@@NAME\n" then its contents up to the next "\n@@@", which the
//                target stores in a zip with correct sizes and CRCs, each member 64-byte aligned as
//                PyTorch writes them, so mutations reach the program's JSON (the first record of the
//                seeds), the weights' config and records, the pickles and archive_format
//                (fuzz/pt2_to_records.py makes both forms from .pt2 files).
//   bit 1 set:   with bit 0, the members are deflated (the reader's inflate path); clear: stored.
// The file goes to /dev/shm (names of its own per process), as export reads a .pt2: by path, mapped.
//
// The op overloads of a program's nodes are looked up in libtorch as the graph is built, so the
// compatibility library (the ops PyTorch 2.x adds) is loaded once first, as the program loads it:
// T2O_FUZZ_KERNEL_LIBRARY names another library, or none when set empty. T2O_FUZZ_PRINT=1 prints what
// each input gives (the program's label or the error's line), to check seeds.
#include "program/exported_program.hpp"

#include <torch2onnx/core/exporter.hpp>

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#ifndef T2O_FUZZ_COMPAT_LIBRARY
#define T2O_FUZZ_COMPAT_LIBRARY ""
#endif

namespace {

void put(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(char((v >> (8 * i)) & 0xFF));
}

// Raw deflate of `body` (zip method 8) into `out`; false on failure (the member is then stored).
bool deflated(std::string_view body, std::string& out) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return false;
  out.resize(deflateBound(&zs, (uLong)body.size()));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  zs.avail_in = (uInt)body.size();
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = (uInt)out.size();
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return rc == Z_STREAM_END;
}

// A zip of the records, each one's data 64-byte aligned by an extra field (as torch.export.save pads
// them), stored, or deflated when `deflate`.
std::string make_zip(const std::vector<std::pair<std::string_view, std::string_view>>& records, bool deflate) {
  std::string out, dir;
  for (const auto& [name, body] : records) {
    const uint32_t crc = (uint32_t)crc32(0, reinterpret_cast<const Bytef*>(body.data()), (uInt)body.size());
    std::string packed;
    const bool is_deflated = deflate && deflated(body, packed);
    const std::string_view data = is_deflated ? std::string_view(packed) : body;
    const uint16_t method = is_deflated ? 8 : 0;
    const uint64_t offset = out.size();
    const size_t pad = (64 - (offset + 30 + name.size() + 4) % 64) % 64;
    put(out, 0x04034b50, 4); put(out, 20, 2); put(out, 0, 2); put(out, method, 2); put(out, 0, 4);
    put(out, crc, 4); put(out, data.size(), 4); put(out, body.size(), 4);
    put(out, name.size(), 2); put(out, 4 + pad, 2);
    out.append(name);
    put(out, 0x4246, 2); put(out, pad, 2); out.append(pad, 'Z');
    out.append(data);
    put(dir, 0x02014b50, 4); put(dir, 20, 2); put(dir, 20, 2); put(dir, 0, 2); put(dir, method, 2); put(dir, 0, 4);
    put(dir, crc, 4); put(dir, data.size(), 4); put(dir, body.size(), 4);
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

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* chosen = std::getenv("T2O_FUZZ_KERNEL_LIBRARY");
  const std::string library = chosen ? chosen : T2O_FUZZ_COMPAT_LIBRARY;
  // Loaded as load_kernel_library loads it (RTLD_NOW | RTLD_LOCAL, never closed), without the probe in
  // a forked child: the library is the build's own.
  if (!library.empty() && !dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    std::fprintf(stderr, "fuzz_pt2_program: cannot load %s: %s\n", library.c_str(), dlerror());
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static unsigned long n = 0;
  const std::string path = "/dev/shm/t2o_fuzz_pt2_" + std::to_string(getpid()) + "_" + std::to_string(n++ % 2) + ".pt2";
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string file = data[0] & 1 ? make_zip(split_records(rest), (data[0] & 2) != 0) : std::string(rest);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(file.data(), 1, file.size(), f);
  std::fclose(f);
  static const bool print = std::getenv("T2O_FUZZ_PRINT") != nullptr;  // what each input gives (seeds)
  try {
    const auto program = t2o::core::program::load_exported_program(path);
    if (print) std::fprintf(stderr, "fuzz_pt2_program: ok: %s\n", program.label.c_str());
  } catch (const t2o::core::ExportError& e) {
    if (print) std::fprintf(stderr, "fuzz_pt2_program: ExportError: %s\n", e.what());
  } catch (...) {
    std::remove(path.c_str());
    throw;  // a finding: libFuzzer reports the uncaught exception with the input
  }
  std::remove(path.c_str());
  return 0;
}
