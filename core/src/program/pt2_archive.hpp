// A .pt2 file (torch.export.save) as the two containers PyTorch writes:
//   PyTorch 2.6/2.7: a flat zip: serialized_exported_program.json, serialized_state_dict.pt,
//                    serialized_constants.pt, serialized_example_inputs.pt, version;
//   PyTorch 2.8 on:  the "PT2 archive": one top folder, archive_format ("pt2"), models/<name>.json,
//                    data/weights/ (raw weight_<i> files described by model_weights_config.json, or
//                    one torch.save'd model.pt), data/constants/ likewise, data/sample_inputs/<name>.pt.
// The file is mapped once; members are views into the mapping, so raw weights become tensors without
// a copy. Which kind a zip is, is decided by its members, not its file name.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace t2o::core::program {

// A private (copy-on-write) mapping of a whole file; members point into it. It is registered with
// load/lazy_weights, so the writer copies bytes of it that nothing wrote to file-to-file.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);  // throws ExportError naming the path
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const char* data() const { return static_cast<const char*>(base_); }
  uint64_t size() const { return size_; }

 private:
  void* base_ = nullptr;
  uint64_t size_ = 0;
  int registration_ = -1;  // lazy_weights::register_mapping's handle
};

// One member's bytes: a view into the mapping (stored members) or inflated into memory (deflated).
// `owner` keeps them alive (tensors made from them hold it).
struct MemberBytes {
  std::shared_ptr<const void> owner;
  const char* data = nullptr;
  uint64_t size = 0;
  std::string view() const { return std::string(data, size); }
};

enum class Pt2Layout {
  Flat,        // PyTorch 2.6/2.7
  Pt2Archive,  // PyTorch 2.8 and later
};

class Pt2Archive {
 public:
  // Throws ExportError("PATH: ...") for a file that cannot be read, is no zip, or no exported program.
  explicit Pt2Archive(const std::string& path);

  const std::string& path() const { return path_; }
  Pt2Layout layout() const { return layout_; }
  // The programs it holds: "model" for the flat layout; the stems of models/*.json otherwise.
  const std::vector<std::string>& models() const { return models_; }
  // The program to convert: `wanted` if given (must exist), else the only one; throws listing the
  // names when there are several and none was chosen.
  std::string choose_model(const std::string& wanted) const;

  bool has(const std::string& member) const;  // a name relative to the top folder
  MemberBytes read(const std::string& member) const;  // throws ExportError naming the member
  // Every member under `folder` (relative names, the folder included).
  std::vector<std::string> members_under(const std::string& folder) const;
  std::string describe() const;  // "PyTorch 2.6/2.7 layout" / "PT2 archive"

 private:
  std::string path_;
  std::shared_ptr<MappedFile> file_;
  std::string top_;  // "m/" of the PT2 archive; "" for the flat layout
  Pt2Layout layout_ = Pt2Layout::Flat;
  std::vector<std::string> models_;
  struct Entry {
    uint16_t method = 0;
    uint64_t compressed = 0, uncompressed = 0, data_offset = 0;
  };
  std::map<std::string, Entry> members_;  // relative names
};

// What the file at `path` is, from one read of its zip directory (its members decide, not its name):
// Program (either layout, or a truncated file whose first member is a program's), Foreign (a readable
// zip holding neither a TorchScript model, <folder>/data.pkl, nor a program), or Other (a TorchScript
// archive, or anything the TorchScript path reports itself: a missing file, no zip). Never throws.
enum class ArchiveKind { Program, Foreign, Other };
ArchiveKind archive_kind(const std::string& path);

}  // namespace t2o::core::program
