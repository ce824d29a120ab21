// libFuzzer target: the torch.save reader of the .pt2 front end (core/src/program/torch_pickle.cpp). Any
// input must give a value or one ExportError; another exception, a crash, a read outside the buffer or UB is
// a finding. The tensors of a value are read element by element here, in instrumented code, so a view the
// reader let reach past its storage (aliased in the buffer, or copied) shows as an AddressSanitizer report.
//
// Input: the first byte chooses the form of the rest.
//   bit 0 clear: the bytes are the torch.save file itself (the zip structure, its sizes and CRCs mutate).
//   bit 0 set:   the bytes are records, "@@@NAME\n" then its contents up to the next "\n@@@", which the
//                target stores in a zip with correct CRCs and each member 64-byte aligned (as torch.save
//                writes), so mutations reach the pickle and the storages behind the CRC check
//                (fuzz/pt_to_records.py makes both forms from .pt files).
//   bit 1 set:   the archive sits 1 byte past an aligned address (every storage is copied); clear: aligned
//                (storages aliasing the buffer).
#include "program/torch_pickle.hpp"

#include <torch2onnx/core/exporter.hpp>

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
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

// A zip of stored members, each one's data 64-byte aligned by an extra field, as torch.save pads them.
std::string stored_zip(const std::vector<std::pair<std::string_view, std::string_view>>& records) {
  std::string out, dir;
  for (const auto& [name, body] : records) {
    const uint32_t crc = crc32(body);
    const uint64_t offset = out.size();
    const size_t pad = (64 - (offset + 30 + name.size() + 4) % 64) % 64;
    put(out, 0x04034b50, 4); put(out, 20, 2); put(out, 0, 2); put(out, 0, 2); put(out, 0, 4);
    put(out, crc, 4); put(out, body.size(), 4); put(out, body.size(), 4);
    put(out, name.size(), 2); put(out, 4 + pad, 2);
    out.append(name);
    put(out, 0x4246, 2); put(out, pad, 2); out.append(pad, 'Z');
    out.append(body);
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

// Every element of every tensor read here (instrumented), at most `budget` elements in all (a stride-0
// view may have far more elements than bytes).
volatile unsigned char sink;
void touch(const c10::IValue& v, size_t& budget, int depth = 0) {
  if (depth > 1100) std::abort();  // the reader bounds nesting at 1000
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (t.numel() == 0) return;
    const auto* base = static_cast<const unsigned char*>(t.storage().data_ptr().get());
    const size_t item = t.element_size();
    const auto sizes = t.sizes(), strides = t.strides();
    std::vector<int64_t> index(sizes.size(), 0);
    while (budget > 0) {
      --budget;
      int64_t at = t.storage_offset();
      for (size_t d = 0; d < sizes.size(); ++d) at += index[d] * strides[d];
      for (size_t b = 0; b < item; ++b) sink = base[at * item + b];
      size_t d = sizes.size();
      while (d > 0 && ++index[d - 1] == sizes[d - 1]) index[--d] = 0;
      if (d == 0) break;
    }
  } else if (v.isTuple()) {
    for (const auto& x : v.toTupleRef().elements()) touch(x, budget, depth + 1);
  } else if (v.isList()) {
    for (const auto& x : v.toListRef()) touch(x, budget, depth + 1);
  } else if (v.isGenericDict()) {
    for (const auto& e : v.toGenericDict()) {
      touch(e.key(), budget, depth + 1);
      touch(e.value(), budget, depth + 1);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string file = data[0] & 1 ? stored_zip(split_records(rest)) : std::string(rest);
  const size_t shift = data[0] & 2 ? 1 : 0;
  // Exactly the file's bytes after the shift, from a 64-byte aligned start: ASan reports a read past them.
  void* buffer = nullptr;
  if (posix_memalign(&buffer, 64, shift + file.size() + (file.empty() && !shift)) != 0) return 0;
  std::shared_ptr<const void> owner(buffer, [](const void* p) { std::free(const_cast<void*>(p)); });
  char* bytes = static_cast<char*>(buffer) + shift;
  if (!file.empty()) std::memcpy(bytes, file.data(), file.size());
  try {
    const c10::IValue v = t2o::core::program::read_torch_save(owner, bytes, file.size(), "fuzz.pt");
    size_t budget = 1 << 16;
    touch(v, budget);
  } catch (const t2o::core::ExportError& e) {
    const std::string line = e.what();
    if (line.find('\n') != std::string::npos || line.rfind("fuzz.pt: ", 0) != 0) std::abort();
  }
  return 0;
}
