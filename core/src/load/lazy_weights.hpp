// Weights that stay in the TorchScript file until something reads them.
//
// torch::jit::load copies every tensor record out of the archive into fresh memory, and the writer
// then copies it again into the ONNX file: for a model of W bytes that is 2W of copying plus W of
// page faults, most of an export's time for a large model. Here the load hands out reserved but
// unreadable memory for large records and remembers where in the file each one lives. Once the load
// returns, settle() gives each storage whose record is still wholly in the file a private mapping of
// it, so a page something reads (freezing's constant deduplication compares the first elements; a
// CPU example run reads everything) is the page cache's own. What the load itself reads (a
// __setstate__) is filled from the file on first touch, one chunk at a time, by a SIGSEGV handler
// (the program's mode; the library's loads such archives eagerly instead). The writer copies
// unwritten mappings and untouched chunks file-to-file in the kernel (copy_file_range), so most
// weights never enter the process.
//
// Set T2O_EAGER_WEIGHTS=1 to load as libtorch does (for comparison, or if anything goes wrong).
#pragma once

#include <caffe2/serialize/read_adapter_interface.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace torch::jit {
struct Module;
}

namespace t2o::core::lazy_weights {

// A reader for torch::jit::load: records of at least kMinLazyBytes whose destination was allocated
// during the load (see LoadScope) are left in the file.
struct FileHandle;  // the open file, shared by the reader and the regions that read from it

class Reader : public caffe2::serialize::ReadAdapterInterface {
 public:
  explicit Reader(const std::string& path);  // throws std::runtime_error with errno's text
  ~Reader() override;
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  size_t size() const override;
  size_t read(uint64_t pos, void* buf, size_t n, const char* what = "") const override;

 private:
  FileHandle* file_ = nullptr;
  size_t size_ = 0;
};

// While alive (on the loading thread), large CPU allocations come from lazy regions. With the signal
// handler, a record's region is filled from the file on first touch (installing a process-wide SIGSEGV
// handler once). Without it, records are left unreadable until settle(): for archives whose load runs
// no code (no __setstate__, no custom classes), which is then the only thing that could read them.
class LoadScope {
 public:
  explicit LoadScope(bool signal_handler = true);
  ~LoadScope();
  LoadScope(const LoadScope&) = delete;
  LoadScope& operator=(const LoadScope&) = delete;
};

// After a load in a LoadScope: each storage the module reaches (attributes of every object, the
// code's tensor constants) whose record is still wholly in the file becomes a private copy-on-write
// mapping of the file, the weights' only copy in the process, read in from the page cache where
// touched. Without the handler, any other record left in the file is read now: nothing stays
// unreadable. With it, the rest stay with the handler (a region the load touched, a record nothing
// reaches).
void settle(const torch::jit::Module& module);

// True when lazy loading is on (T2O_EAGER_WEIGHTS unset or 0).
bool enabled();

// Where the n bytes at p are in their TorchScript file, when write_bytes would copy every one of
// them file-to-file (a mapped record nothing wrote, or unread chunks of a handler's region): the
// file as fstat(2) sees it and the offset. Otherwise (memory, or partly read or written) nothing.
struct FileSpan {
  uint64_t device = 0, inode = 0, size = 0, mtime_ns = 0;  // the file
  uint64_t offset = 0;                                      // of the first byte
};
std::optional<FileSpan> file_span(const void* p, size_t n);

// Writes n bytes at p to out_fd (at its current position). Bytes of lazy regions that nothing has
// read, and of mapped records nothing has written, go file-to-file; the rest from memory. Returns false on a write error (errno set).
bool write_bytes(int out_fd, const void* p, size_t n);

// A whole file that someone else mapped privately (copy-on-write; program/'s mapping of a .pt2, whose
// raw weight records are tensors over it): once registered, its bytes nothing wrote to are, for
// file_span and write_bytes, those of a mapped record (copied file-to-file). `fd` is the file open for
// reading; it is duplicated (the caller closes its own). Returns the handle for unregister_mapping, or
// -1 when nothing was registered (lazy weights off, no slot left, no fd): the bytes are then written
// from memory. On the loading thread, as loads are.
int register_mapping(const void* base, size_t length, int fd);
// Before the mapping is unmapped; -1 is ignored.
void unregister_mapping(int handle);

// Bytes write_bytes has copied file-to-file in this process (statistics and tests).
uint64_t bytes_copied_from_files();

}  // namespace t2o::core::lazy_weights
