// A zip's central directory, each entry checked against the file, without libtorch: for
// check_archive_bounds (archive_bounds.cpp) and for the torch2onnx program's launcher, which finds a
// .pt's weight records before libtorch has started (tools/weights_head_start.cpp).
#pragma once

#include "load/archive_bounds.hpp"

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace t2o::core::zip {

// What does not hold, as the line check_archive_bounds prints after the file's name.
struct Refusal {
  std::string what;
};
[[noreturn]] void refuse(const std::string& what);

// A quoted member name for a message: the full name may be long and hold any byte; printable()
// escapes it where the line is printed, this only keeps the line short. A NUL byte is escaped here:
// the message travels as a C string (an exception's what()) before printable() sees it.
std::string shown_name(const std::string& name);

// n bytes at p, little-endian.
uint64_t le(const unsigned char* p, int n);

class File {
 public:
  explicit File(const std::string& path) : in_(path, std::ios::binary) {
    if (!in_) refuse("cannot be opened for reading");
    in_.seekg(0, std::ios::end);
    size_ = (uint64_t)in_.tellg();
  }
  uint64_t size() const { return size_; }
  // n bytes at pos; refuses when the file has fewer.
  std::vector<unsigned char> read(uint64_t pos, uint64_t n, const char* what) {
    if (pos > size_ || n > size_ - pos)
      refuse(std::string(what) + " at byte " + std::to_string(pos) + " (" + std::to_string(n) +
             " bytes) lies beyond the end of the file (" + std::to_string(size_) + " bytes)");
    std::vector<unsigned char> buf(n);
    in_.clear();
    in_.seekg((std::streamoff)pos);
    in_.read(reinterpret_cast<char*>(buf.data()), (std::streamsize)n);
    if ((uint64_t)in_.gcount() != n) refuse(std::string("cannot read ") + what);
    return buf;
  }

 private:
  std::ifstream in_;
  uint64_t size_ = 0;
};

struct Member {
  std::string name;
  uint16_t method = 0;
  uint64_t compressed = 0, uncompressed = 0, local_offset = 0, data_offset = 0;
};

// The central directory, each entry checked against the file: sizes, the local header and the data
// inside the file; stored members' two sizes equal; deflated members within the ratio; at most
// bounds.max_entries of them. Refuses
// (throws Refusal) what does not hold.
std::vector<Member> read_members(File& file, const ArchiveBounds& bounds);

}  // namespace t2o::core::zip
