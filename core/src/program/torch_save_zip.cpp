#include "program/torch_save_zip.hpp"

#include <algorithm>
#include <utility>

namespace t2o::core::program::torch_save_zip {

void refuse(std::string what) { throw Refusal{std::move(what)}; }

namespace {
uint32_t crc32(const unsigned char* p, size_t n) {
  static const auto table = [] {
    std::vector<uint32_t> t(256);
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}
}  // namespace

std::string_view Zip::stored(const Member& m, bool check_crc) const {
  if (m.flags & 1) refuse("member " + shown(m.name) + " is encrypted");
  if (m.method != 0)
    refuse("member " + shown(m.name) + " is compressed (method " + std::to_string(m.method) +
           "; torch.save stores its records uncompressed)");
  const unsigned char* p = data_ + m.data_offset;
  if (check_crc && crc32(p, m.compressed) != m.crc) refuse("member " + shown(m.name) + " fails its CRC check");
  return {reinterpret_cast<const char*>(p), m.compressed};
}


const unsigned char* Zip::at(uint64_t pos, uint64_t n, const std::string& what) const {
  if (pos > size_ || n > size_ - pos)
    refuse(what + " at byte " + std::to_string(pos) + " (" + std::to_string(n) + " bytes) lies beyond the end (" +
           std::to_string(size_) + " bytes): corrupt or truncated zip");
  return data_ + pos;
}

void Zip::read_directory() {
  if (size_ >= 4 && data_[0] == 0x80 && data_[1] <= 5 && data_[2] == 0x8a)
    refuse("a legacy torch.save file (PyTorch < 1.6, or _use_new_zipfile_serialization=False), not a zip: "
           "save it again with a newer PyTorch");
  if (size_ < 22) refuse("not a zip archive (" + std::to_string(size_) + " bytes), or truncated");
  // The end record: its signature nearest the end, with its comment inside the buffer.
  const uint64_t lowest = size_ - 22 > 65535 ? size_ - 22 - 65535 : 0;
  uint64_t eocd = UINT64_MAX;
  for (uint64_t i = size_ - 22 + 1; i-- > lowest;)
    if (le(data_ + i, 4) == 0x06054b50 && i + 22 + le(data_ + i + 20, 2) <= size_) {
      eocd = i;
      break;
    }
  if (eocd == UINT64_MAX) refuse("not a zip archive (no end record), or truncated");
  uint64_t entries = le(data_ + eocd + 10, 2), cd_size = le(data_ + eocd + 12, 4),
           cd_offset = le(data_ + eocd + 16, 4);
  if (entries == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF) {
    if (eocd < 20 || le(data_ + eocd - 20, 4) != 0x07064b50) refuse("no zip64 end record locator: corrupt zip");
    const uint64_t rec_pos = le(data_ + eocd - 20 + 8, 8);
    const unsigned char* rec = at(rec_pos, 56, "the zip64 end record");
    if (le(rec, 4) != 0x06064b50) refuse("bad zip64 end record: corrupt zip");
    entries = le(rec + 32, 8);
    cd_size = le(rec + 40, 8);
    cd_offset = le(rec + 48, 8);
  }
  // Each entry takes at least 46 bytes: the count cannot exceed what the directory holds.
  if (entries > cd_size / 46)
    refuse("the zip directory claims " + std::to_string(entries) + " members in " + std::to_string(cd_size) +
           " bytes: corrupt zip");
  const unsigned char* cd = at(cd_offset, cd_size, "the zip directory");
  members_.reserve(entries);
  uint64_t p = 0;
  for (uint64_t k = 0; k < entries; ++k) {
    if (p + 46 > cd_size || le(cd + p, 4) != 0x02014b50)
      refuse("zip directory entry " + std::to_string(k) + " is malformed: corrupt zip");
    Member m;
    m.flags = (uint16_t)le(cd + p + 8, 2);
    m.method = (uint16_t)le(cd + p + 10, 2);
    m.crc = (uint32_t)le(cd + p + 16, 4);
    m.compressed = le(cd + p + 20, 4);
    m.uncompressed = le(cd + p + 24, 4);
    const uint64_t name_len = le(cd + p + 28, 2), extra_len = le(cd + p + 30, 2), comment_len = le(cd + p + 32, 2);
    m.local_offset = le(cd + p + 42, 4);
    if (p + 46 + name_len + extra_len + comment_len > cd_size)
      refuse("zip directory entry " + std::to_string(k) + " runs past the directory: corrupt zip");
    m.name.assign(reinterpret_cast<const char*>(cd + p + 46), name_len);
    // zip64: the 32-bit fields that read 0xFFFFFFFF are in the extra field (id 1), in this order.
    const uint64_t extra_end = p + 46 + name_len + extra_len;
    for (uint64_t e = p + 46 + name_len; e + 4 <= extra_end;) {
      const uint64_t id = le(cd + e, 2), len = le(cd + e + 2, 2);
      if (e + 4 + len > extra_end) break;
      if (id == 1) {
        uint64_t q = e + 4;
        for (uint64_t* field : {&m.uncompressed, &m.compressed, &m.local_offset}) {
          if (*field != 0xFFFFFFFF) continue;
          if (q + 8 > e + 4 + len) refuse("the zip64 field of " + shown(m.name) + " is truncated: corrupt zip");
          *field = le(cd + q, 8);
          q += 8;
        }
      }
      e += 4 + len;
    }
    p = extra_end + comment_len;
    const unsigned char* local = at(m.local_offset, 30, "the local header of " + shown(m.name));
    if (le(local, 4) != 0x04034b50)
      refuse("member " + shown(m.name) + " has no local header where the directory says: corrupt zip");
    m.data_offset = m.local_offset + 30 + le(local + 26, 2) + le(local + 28, 2);
    at(m.data_offset, m.compressed, "member " + shown(m.name));
    if (m.method == 0 && m.compressed != m.uncompressed)
      refuse("stored member " + shown(m.name) + " claims " + std::to_string(m.uncompressed) + " bytes but holds " +
             std::to_string(m.compressed) + ": corrupt zip");
    if (!index_.emplace(m.name, members_.size()).second)
      refuse("member " + shown(m.name) + " appears twice in the zip");
    members_.push_back(std::move(m));
  }
}

std::string top_folder(const Zip& zip) {
  std::vector<std::string> tops;
  for (const Member& m : zip.members()) {
    const size_t slash = m.name.find('/');
    if (slash != std::string::npos && slash > 0 && m.name.compare(slash, std::string::npos, "/data.pkl") == 0)
      tops.push_back(m.name.substr(0, slash));
  }
  if (tops.empty()) refuse("no <folder>/data.pkl in the zip: not a torch.save archive");
  if (tops.size() == 1) return tops[0];
  // Several: the folder of the first member, as PyTorch's reader takes it.
  const std::string& first = zip.members().front().name;
  const std::string first_top = first.substr(0, first.find('/'));
  if (std::find(tops.begin(), tops.end(), first_top) != tops.end()) return first_top;
  refuse("several folders hold a data.pkl (" + shown(tops[0]) + ", " + shown(tops[1]) + ")");
}

}  // namespace t2o::core::program::torch_save_zip
