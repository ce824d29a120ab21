#include "program/pt2_archive.hpp"

#include "load/lazy_weights.hpp"
#include "load/zip_members.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <zlib.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace t2o::core::program {

MappedFile::MappedFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ExportError(path + ": cannot be opened for reading: " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw ExportError(path + ": not a regular file");
  }
  size_ = (uint64_t)st.st_size;
  if (size_ > 0) {
    // Copy-on-write: tensors over it are writable as libtorch expects, and nothing reaches the file.
    base_ = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (base_ == MAP_FAILED) {
      base_ = nullptr;
      ::close(fd);
      throw ExportError(path + ": cannot be mapped: " + std::strerror(errno));
    }
    // Raw weight records (and aligned pickled ones) are tensors over the mapping: what nothing
    // wrote to goes from this file to the ONNX file in the kernel, never through memory.
    registration_ = lazy_weights::register_mapping(base_, size_, fd);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  lazy_weights::unregister_mapping(registration_);
  if (base_) munmap(base_, size_);
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The central directory of `path`, or the refusal's text.
std::vector<zip::Member> directory(const std::string& path) {
  zip::File file(path);
  return zip::read_members(file, ArchiveBounds{});
}

}  // namespace

// A zip whose directory cannot be read (a truncated download): its first member's local header
// still says what it was. Only names no TorchScript archive has count.
bool starts_like_program(const std::string& path) {
  try {
    zip::File file(path);
    auto local = file.read(0, 30, "the first local header");
    if (zip::le(&local[0], 4) != 0x04034b50) return false;
    const size_t name_len = zip::le(&local[26], 2);
    auto raw = file.read(30, name_len, "the first member's name");
    const std::string name(raw.begin(), raw.end());
    if (name == "serialized_exported_program.json") return true;
    auto slash = name.find('/');
    if (slash == std::string::npos) return false;
    const std::string rest = name.substr(slash + 1);
    for (const char* prefix : {"archive_format", "models/", "data/weights/", "data/constants/", "data/sample_inputs/"})
      if (rest.rfind(prefix, 0) == 0) return true;
  } catch (...) {
  }
  return false;
}

ArchiveKind archive_kind(const std::string& path) {
  std::vector<zip::Member> members;
  try {
    members = directory(path);
  } catch (...) {
    // No readable directory: a truncated program still names itself in its first member (Pt2Archive
    // then says what is wrong); anything else is the TorchScript path's to report.
    return starts_like_program(path) ? ArchiveKind::Program : ArchiveKind::Other;
  }
  bool torchscript = false;
  for (const auto& m : members) {
    if (m.name == "serialized_exported_program.json") return ArchiveKind::Program;
    auto slash = m.name.find('/');
    if (slash == std::string::npos) continue;
    // The PT2 archive: <top>/archive_format, or <top>/models/<name>.json.
    const std::string rest = m.name.substr(slash + 1);
    if (rest == "archive_format" || (rest.rfind("models/", 0) == 0 && ends_with(rest, ".json"))) return ArchiveKind::Program;
    // TorchScript: <folder>/data.pkl, found case-insensitively as libtorch's zip reader finds it.
    std::string lower = rest;
    for (auto& c : lower) c = (char)std::tolower((unsigned char)c);
    torchscript = torchscript || lower == "data.pkl";
  }
  return torchscript ? ArchiveKind::Other : ArchiveKind::Foreign;
}

Pt2Archive::Pt2Archive(const std::string& path) : path_(path) {
  std::vector<zip::Member> entries;
  try {
    entries = directory(path);
  } catch (const zip::Refusal& r) {
    throw ExportError(path + ": corrupt or truncated .pt2 archive: " + r.what);
  }
  file_ = std::make_shared<MappedFile>(path);
  bool flat = false;
  for (const auto& m : entries)
    if (m.name == "serialized_exported_program.json") flat = true;
  if (flat) {
    layout_ = Pt2Layout::Flat;
  } else {
    layout_ = Pt2Layout::Pt2Archive;
    for (const auto& m : entries) {
      auto slash = m.name.find('/');
      if (slash != std::string::npos && m.name.substr(slash + 1) == "archive_format") top_ = m.name.substr(0, slash + 1);
    }
    if (top_.empty())
      for (const auto& m : entries) {
        auto slash = m.name.find('/');
        if (slash != std::string::npos && m.name.compare(slash + 1, 7, "models/") == 0) top_ = m.name.substr(0, slash + 1);
      }
    if (top_.empty())
      throw ExportError(path + ": not an exported program: a zip without serialized_exported_program.json "
                               "(PyTorch 2.6/2.7) or a PT2 archive's archive_format and models/ (PyTorch 2.8+)");
  }
  for (const auto& m : entries) {
    if (m.name.compare(0, top_.size(), top_) != 0) continue;
    members_[m.name.substr(top_.size())] = Entry{m.method, m.compressed, m.uncompressed, m.data_offset};
  }
  if (layout_ == Pt2Layout::Flat) {
    models_.push_back("model");
  } else {
    if (has("archive_format")) {
      std::string format = read("archive_format").view();
      while (!format.empty() && (format.back() == '\n' || format.back() == '\r' || format.back() == ' ')) format.pop_back();
      if (format != "pt2")
        throw ExportError(path + ": a PT2 archive of format '" + format.substr(0, 40) + "', not 'pt2'");
    }
    for (const auto& [name, e] : members_) {
      if (name.rfind("models/", 0) != 0 || !ends_with(name, ".json")) continue;
      std::string stem = name.substr(7, name.size() - 7 - 5);
      if (stem.find('/') == std::string::npos) models_.push_back(stem);
    }
    if (models_.empty()) {
      // An AOTInductor package (compiled code, no program) has no models/*.json.
      throw ExportError(path + ": a PT2 archive without an exported program (no " + top_ + "models/<name>.json; "
                               "an AOTInductor package holds compiled code, which cannot be converted)");
    }
  }
}

std::string Pt2Archive::choose_model(const std::string& wanted) const {
  auto list = [&] {
    std::string s;
    for (const auto& m : models_) s += (s.empty() ? "" : ", ") + m;
    return s;
  };
  if (!wanted.empty()) {
    for (const auto& m : models_)
      if (m == wanted) return m;
    throw ExportError(path_ + ": no program named '" + wanted + "' (it holds: " + list() + ")");
  }
  if (models_.size() == 1) return models_[0];
  throw ExportError(path_ + ": holds " + std::to_string(models_.size()) + " programs (" + list() +
                    "): choose one with --model NAME");
}

bool Pt2Archive::has(const std::string& member) const { return members_.count(member) != 0; }

std::vector<std::string> Pt2Archive::members_under(const std::string& folder) const {
  std::vector<std::string> out;
  for (const auto& [name, e] : members_)
    if (name.compare(0, folder.size(), folder) == 0) out.push_back(name);
  return out;
}

MemberBytes Pt2Archive::read(const std::string& member) const {
  auto it = members_.find(member);
  if (it == members_.end()) throw ExportError(path_ + ": the archive has no member " + top_ + member);
  const Entry& e = it->second;
  MemberBytes out;
  if (e.method == 0) {
    out.owner = file_;
    out.data = file_->data() + e.data_offset;
    out.size = e.uncompressed;
    return out;
  }
  if (e.method != 8)
    throw ExportError(path_ + ": member " + top_ + member + " is compressed with method " + std::to_string(e.method) +
                      " (only stored and deflated members can be read)");
  auto buffer = std::make_shared<std::string>();
  buffer->resize(e.uncompressed);
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) throw ExportError(path_ + ": cannot inflate " + top_ + member);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(file_->data() + e.data_offset));
  zs.avail_in = (uInt)e.compressed;
  zs.next_out = reinterpret_cast<Bytef*>(buffer->data());
  zs.avail_out = (uInt)e.uncompressed;
  int rc = inflate(&zs, Z_FINISH);
  const uint64_t produced = zs.total_out;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END || produced != e.uncompressed)
    throw ExportError(path_ + ": member " + top_ + member + " is corrupt (its deflated data does not inflate to the " +
                      std::to_string(e.uncompressed) + " bytes its header claims)");
  out.data = buffer->data();
  out.size = buffer->size();
  out.owner = std::move(buffer);
  return out;
}

std::string Pt2Archive::describe() const {
  return layout_ == Pt2Layout::Flat ? "the PyTorch 2.6/2.7 layout" : "a PT2 archive";
}

}  // namespace t2o::core::program
