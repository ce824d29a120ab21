#include "load/zip_members.hpp"

#include <algorithm>

namespace t2o::core::zip {

void refuse(const std::string& what) { throw Refusal{what}; }

std::string shown_name(const std::string& name) {
  std::string shown = "'";
  for (char c : name.size() > 120 ? name.substr(0, 60) + "..." + name.substr(name.size() - 40) : name)
    shown += c == '\0' ? std::string("\\x00") : std::string(1, c);
  return shown + "'";
}

uint64_t le(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::vector<Member> read_members(File& file, const ArchiveBounds& bounds) {
  const uint64_t size = file.size();
  if (size < 22) refuse("shorter than a zip's end record");
  const uint64_t tail_len = std::min<uint64_t>(size, 22 + 65535);
  auto tail = file.read(size - tail_len, tail_len, "the end record");
  size_t eocd = std::string::npos;
  for (size_t i = tail_len - 22 + 1; i-- > 0;)
    if (le(&tail[i], 4) == 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd == std::string::npos) refuse("no zip end record");
  uint64_t entries = le(&tail[eocd + 10], 2), cd_size = le(&tail[eocd + 12], 4), cd_offset = le(&tail[eocd + 16], 4);
  if (entries == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF) {
    const uint64_t eocd_pos = size - tail_len + eocd;
    if (eocd_pos < 20) refuse("no zip64 end record locator");
    auto loc = file.read(eocd_pos - 20, 20, "the zip64 locator");
    if (le(&loc[0], 4) != 0x07064b50) refuse("no zip64 end record locator");
    auto rec = file.read(le(&loc[8], 8), 56, "the zip64 end record");
    if (le(&rec[0], 4) != 0x06064b50) refuse("bad zip64 end record");
    entries = le(&rec[32], 8);
    cd_size = le(&rec[40], 8);
    cd_offset = le(&rec[48], 8);
  }
  if (entries > bounds.max_entries)
    refuse(std::to_string(entries) + " zip members (at most " + std::to_string(bounds.max_entries) + ")");
  // Each entry takes at least 46 bytes: the count cannot exceed what the directory holds.
  if (entries > cd_size / 46) refuse("the zip directory claims " + std::to_string(entries) + " members in " +
                                      std::to_string(cd_size) + " bytes");
  auto cd = file.read(cd_offset, cd_size, "the zip directory");
  std::vector<Member> members;
  members.reserve(entries);
  size_t p = 0;
  for (uint64_t k = 0; k < entries; ++k) {
    if (p + 46 > cd.size() || le(&cd[p], 4) != 0x02014b50) refuse("zip directory entry " + std::to_string(k) + " is malformed");
    Member m;
    m.method = (uint16_t)le(&cd[p + 10], 2);
    m.compressed = le(&cd[p + 20], 4);
    m.uncompressed = le(&cd[p + 24], 4);
    const size_t name_len = le(&cd[p + 28], 2), extra_len = le(&cd[p + 30], 2), comment_len = le(&cd[p + 32], 2);
    m.local_offset = le(&cd[p + 42], 4);
    if (p + 46 + name_len + extra_len + comment_len > cd.size())
      refuse("zip directory entry " + std::to_string(k) + " runs past the directory");
    m.name.assign(reinterpret_cast<const char*>(&cd[p + 46]), name_len);
    // miniz hands libtorch the name as a C string: past a NUL byte, libtorch and these checks would
    // see two different names (its folder, its version record).
    if (m.name.find('\0') != std::string::npos) refuse("zip member name " + shown_name(m.name) + " holds a NUL byte");
    // zip64: the 32-bit fields that read 0xFFFFFFFF are in the extra field (id 1), in this order.
    for (size_t e = p + 46 + name_len; e + 4 <= p + 46 + name_len + extra_len;) {
      const size_t id = le(&cd[e], 2), len = le(&cd[e + 2], 2);
      if (e + 4 + len > p + 46 + name_len + extra_len) break;
      if (id == 1) {
        size_t q = e + 4;
        for (uint64_t* field : {&m.uncompressed, &m.compressed, &m.local_offset}) {
          if (*field != 0xFFFFFFFF) continue;
          if (q + 8 > e + 4 + len) refuse("zip64 field of " + shown_name(m.name) + " is truncated");
          *field = le(&cd[q], 8);
          q += 8;
        }
      }
      e += 4 + len;
    }
    p += 46 + name_len + extra_len + comment_len;
    auto local = file.read(m.local_offset, 30, ("the local header of " + shown_name(m.name)).c_str());
    if (le(&local[0], 4) != 0x04034b50) refuse("member " + shown_name(m.name) + " has no local header where the directory says");
    m.data_offset = m.local_offset + 30 + le(&local[26], 2) + le(&local[28], 2);
    if (m.data_offset > size || m.compressed > size - m.data_offset)
      refuse("member " + shown_name(m.name) + " claims " + std::to_string(m.compressed) + " bytes at byte " +
             std::to_string(m.data_offset) + ", beyond the end of the file (" + std::to_string(size) + " bytes)");
    if (m.method == 0 && m.compressed != m.uncompressed)
      refuse("stored member " + shown_name(m.name) + " claims " + std::to_string(m.uncompressed) + " bytes but holds " +
             std::to_string(m.compressed));
    if (m.method != 0 && m.uncompressed > bounds.min_ratio_checked_bytes &&
        m.uncompressed / bounds.max_deflate_ratio > m.compressed)
      refuse("compressed member " + shown_name(m.name) + " expands " + std::to_string(m.compressed) + " bytes to " +
             std::to_string(m.uncompressed) + " (more than " + std::to_string(bounds.max_deflate_ratio) + " times)");
    members.push_back(std::move(m));
  }
  return members;
}

}  // namespace t2o::core::zip
