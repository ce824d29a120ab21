// The zip of a torch.save archive, held in memory (torch_pickle reads its pickle and records): the
// central directory (zip64 too), every member checked to lie inside the buffer; stored members only, as
// torch.save writes them. What does not hold is a Refusal, which torch_pickle turns into its one line.
#pragma once

#include "load/zip_members.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace t2o::core::program::torch_save_zip {

struct Refusal {
  std::string what;
};
[[noreturn]] void refuse(std::string what);

// The zip reader of load/ says these the same way: n bytes at p, little-endian; a name or string from
// the file, quoted and kept short for a message.
using zip::le;
inline std::string shown(std::string_view s) { return zip::shown_name(std::string(s)); }

struct Member {
  std::string name;
  uint16_t flags = 0, method = 0;
  uint32_t crc = 0;
  uint64_t compressed = 0, uncompressed = 0, local_offset = 0, data_offset = 0;
};

class Zip {
 public:
  Zip(const unsigned char* data, size_t size) : data_(data), size_(size) { read_directory(); }

  const std::vector<Member>& members() const { return members_; }
  const Member* find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &members_[it->second];
  }
  // A stored member's bytes (inside the buffer: checked when the directory was read).
  std::string_view stored(const Member& m, bool check_crc) const;

 private:
  const unsigned char* at(uint64_t pos, uint64_t n, const std::string& what) const;
  void read_directory();

  const unsigned char* data_;
  size_t size_;
  std::vector<Member> members_;
  std::unordered_map<std::string, size_t> index_;
};

// The archive's folder: the one holding data.pkl (torch.save names it after the file, or "archive").
std::string top_folder(const Zip& zip);

}  // namespace t2o::core::program::torch_save_zip
