#include "load/lazy_weights.hpp"

#include "common/torch_compat.hpp"

#include <c10/core/CPUAllocator.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/script.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <mutex>
#include <sched.h>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <unordered_map>
#include <unordered_set>
#include <functional>
#include <sys/stat.h>
#include <unistd.h>

namespace t2o::core::lazy_weights {

// One TorchScript file that lazy regions read from; closed when the reader and its regions are gone.
struct FileHandle {
  int fd = -1;
  std::atomic<int> refs{1};
  void unref() {
    if (refs.fetch_sub(1) == 1) {
      ::close(fd);
      delete this;
    }
  }
};

namespace {

constexpr size_t kMinLazyBytes = 1u << 20;  // smaller records are not worth a region
constexpr size_t kChunk = 2u << 20;         // filled from the file per 2 MiB on first touch
constexpr int kMaxRegions = 1 << 15;

// kPending: a record left in the file by a load without the handler, unreadable until settle();
// kMapped: a record's bytes as a private mapping of the file (its DataPtr after settle()).
enum RegionState : int { kUnused = 0, kReserved = 1, kLazy = 2, kDead = 3, kPending = 4, kMapped = 5 };
enum ChunkState : uint8_t { kUnread = 0, kLoading = 1, kLoaded = 2 };

// One large allocation made during a load. The SIGSEGV handler reads these fields without locks:
// they are written before `state` is published (release) and read after it is observed (acquire).
struct Region {
  std::atomic<int> state{kUnused};
  char* base = nullptr;
  size_t mapped = 0;  // page-rounded length of the mapping
  size_t bytes = 0;   // bytes asked for (the record's size)
  FileHandle* file = nullptr;
  uint64_t file_offset = 0;
  std::atomic<uint8_t>* chunks = nullptr;
  void* map_base = nullptr;  // kMapped: the page-aligned mapping that holds base
  size_t map_length = 0;
};

Region g_regions[kMaxRegions];
std::atomic<int> g_region_count{0};
thread_local bool t_loading = false;
thread_local bool t_without_handler = false;  // LoadScope(false): records become kPending
struct sigaction g_previous_segv;
std::once_flag g_install_once;

size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

// Newest first: a dead region's addresses may since belong to a newer one.
Region* find_region(const void* address, int wanted_state) {
  const char* a = static_cast<const char*>(address);
  for (int i = g_region_count.load(std::memory_order_acquire) - 1; i >= 0; --i) {
    Region& r = g_regions[i];
    if (r.state.load(std::memory_order_acquire) != wanted_state) continue;
    if (a >= r.base && a < r.base + r.mapped) return &r;
  }
  return nullptr;
}

[[noreturn]] void die(const char* what) {
  // In a signal handler: write(2) and _exit only.
  const char prefix[] = "torch2onnx: error: reading weights from the TorchScript file failed: ";
  ssize_t ignored = ::write(2, prefix, sizeof(prefix) - 1);
  ignored = ::write(2, what, strlen(what));
  ignored = ::write(2, "\n", 1);
  (void)ignored;
  _exit(1);
}

bool pread_all(int fd, char* dst, size_t n, uint64_t offset) {
  while (n) {
    ssize_t k = ::pread(fd, dst, n, off_t(offset));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    dst += k;
    n -= size_t(k);
    offset += uint64_t(k);
  }
  return true;
}

// Fills one chunk from the file. The bytes go into a fresh mapping that then replaces the
// unreadable chunk in one step (mremap), so another thread never sees the chunk readable but empty.
void load_chunk(Region& r, size_t index) {
  std::atomic<uint8_t>& chunk = r.chunks[index];
  uint8_t expected = kUnread;
  if (!chunk.compare_exchange_strong(expected, kLoading, std::memory_order_acq_rel)) {
    while (chunk.load(std::memory_order_acquire) != kLoaded) sched_yield();
    return;
  }
  const size_t start = index * kChunk;
  const size_t length = std::min(kChunk, r.mapped - start);
  const size_t from_file = start < r.bytes ? std::min(length, r.bytes - start) : 0;
  void* fresh = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (fresh == MAP_FAILED) die("out of memory");
  if (from_file && !pread_all(r.file->fd, static_cast<char*>(fresh), from_file, r.file_offset + start))
    die("the file changed or became unreadable during the export");
  if (mremap(fresh, length, length, MREMAP_MAYMOVE | MREMAP_FIXED, r.base + start) == MAP_FAILED)
    die("mremap failed");
  chunk.store(kLoaded, std::memory_order_release);
}

void on_segv(int sig, siginfo_t* info, void* context) {
  Region* r = find_region(info->si_addr, kLazy);
  if (r) {
    load_chunk(*r, size_t(static_cast<char*>(info->si_addr) - r->base) / kChunk);
    return;  // the faulting access runs again, now on filled memory
  }
  // Not ours: a real crash. Hand it to whoever handled it before (by default: die with SIGSEGV).
  if (g_previous_segv.sa_flags & SA_SIGINFO) {
    if (g_previous_segv.sa_sigaction) {
      g_previous_segv.sa_sigaction(sig, info, context);
      return;
    }
  }
  sigaction(SIGSEGV, &g_previous_segv, nullptr);
}

void install_handler() {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_segv;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGSEGV, &action, &g_previous_segv);
}

c10::DeleterFnPtr g_base_raw_deleter = nullptr;

// The live region whose mapping starts at p, if any.
Region* region_at(const void* p) {
  for (int i = g_region_count.load(std::memory_order_acquire) - 1; i >= 0; --i) {
    Region& r = g_regions[i];
    const int state = r.state.load(std::memory_order_acquire);
    if ((state == kReserved || state == kLazy || state == kPending) && r.base == p) return &r;
  }
  return nullptr;
}

void release_region(Region* r) {
  const int was = r->state.exchange(kDead, std::memory_order_acq_rel);
  munmap(r->base, r->mapped);
  delete[] r->chunks;
  r->chunks = nullptr;
  if ((was == kLazy || was == kPending) && r->file) r->file->unref();
  r->file = nullptr;
}

// The deleter of every lazy allocation and the allocator's raw deleter: a region's base pointer is
// unmapped, anything else goes back to libtorch's allocator.
void release_pointer(void* p) {
  if (Region* r = region_at(p)) release_region(r);
  else if (g_base_raw_deleter) g_base_raw_deleter(p);
}

// The process-wide CPU allocator: libtorch's own, except for large allocations made on a thread
// inside LoadScope, which get a region of their own.
// (torch_compat::Allocator: allocate() in the form of the libtorch built against.)
class LazyAllocator final : public torch_compat::Allocator {
 public:
  explicit LazyAllocator(c10::Allocator* base) : base_(base) {}
  c10::DataPtr allocate_bytes(size_t n) const override {
    if (!t_loading || n < kMinLazyBytes) return base_->allocate(n);
    int slot = g_region_count.load(std::memory_order_relaxed);
    if (slot >= kMaxRegions) return base_->allocate(n);
    const size_t mapped = (n + page_size() - 1) / page_size() * page_size();
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return base_->allocate(n);
    Region& r = g_regions[slot];
    r.base = static_cast<char*>(p);
    r.mapped = mapped;
    r.bytes = n;
    r.state.store(kReserved, std::memory_order_release);
    g_region_count.store(slot + 1, std::memory_order_release);
    // Context == pointer, as raw_allocate requires (quantized packing calls it while loading); both
    // ways of freeing end in release_pointer, which tells regions from libtorch's own allocations.
    return c10::DataPtr(p, p, &release_pointer, c10::Device(c10::DeviceType::CPU));
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release_pointer; }

 private:
  c10::Allocator* base_;
};

void install_allocator() {
  g_base_raw_deleter = c10::GetCPUAllocator()->raw_deleter();
  static LazyAllocator allocator(c10::GetCPUAllocator());
  c10::SetCPUAllocator(&allocator, /*priority=*/100);
}

bool copy_file_bytes(int in_fd, uint64_t offset, int out_fd, size_t n) {
  // In-kernel copy first; sendfile and a bounce buffer when the file systems refuse it.
  while (n) {
    loff_t in_off = loff_t(offset);
    ssize_t k = copy_file_range(in_fd, &in_off, out_fd, nullptr, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    offset += uint64_t(k);
    n -= size_t(k);
  }
  while (n) {
    off_t in_off = off_t(offset);
    ssize_t k = sendfile(out_fd, in_fd, &in_off, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    offset += uint64_t(k);
    n -= size_t(k);
  }
  static thread_local std::unique_ptr<char[]> bounce;
  if (n && !bounce) bounce.reset(new char[kChunk]);
  while (n) {
    size_t piece = std::min(n, kChunk);
    if (!pread_all(in_fd, bounce.get(), piece, offset)) return false;
    for (size_t done = 0; done < piece;) {
      ssize_t k = ::write(out_fd, bounce.get() + done, piece - done);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return false;
      done += size_t(k);
    }
    offset += piece;
    n -= piece;
  }
  return true;
}

bool write_memory(int fd, const char* p, size_t n) {
  while (n) {
    ssize_t k = ::write(fd, p, std::min<size_t>(n, 1u << 30));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= size_t(k);
  }
  return true;
}

}  // namespace

bool enabled() {
  static const bool on = [] {
    const char* v = std::getenv("T2O_EAGER_WEIGHTS");
    return !(v && *v && std::strcmp(v, "0") != 0);
  }();
  return on;
}

Reader::Reader(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(path + ": " + std::strerror(errno));
  off_t end = lseek(fd, 0, SEEK_END);
  if (end < 0) {
    int e = errno;
    ::close(fd);
    throw std::runtime_error(path + ": " + std::strerror(e));
  }
  size_ = size_t(end);
  file_ = new FileHandle;
  file_->fd = fd;
}

Reader::~Reader() { file_->unref(); }

size_t Reader::size() const { return size_; }

size_t Reader::read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const {
  if (n >= kMinLazyBytes && pos + n <= size_) {
    Region* r = find_region(buf, kReserved);
    // The whole of a region allocated for exactly this record: leave the bytes in the file.
    if (r && r->base == buf && r->bytes == n) {
      // With the handler, filled on first touch; without, left unreadable until settle() maps or reads
      // it: a read before then is a crash, never zeros.
      const bool handler = !t_without_handler;
      if (handler) {
        std::call_once(g_install_once, install_handler);
        const size_t chunks = (r->mapped + kChunk - 1) / kChunk;
        r->chunks = new std::atomic<uint8_t>[chunks];
        for (size_t i = 0; i < chunks; ++i) r->chunks[i].store(kUnread, std::memory_order_relaxed);
      }
      file_->refs.fetch_add(1);
      r->file = file_;
      r->file_offset = pos;
      if (mprotect(r->base, r->mapped, PROT_NONE) == 0) {
        r->state.store(handler ? kLazy : kPending, std::memory_order_release);
        return n;
      }
      file_->refs.fetch_sub(1);
      r->file = nullptr;
      delete[] r->chunks;
      r->chunks = nullptr;
    }
  }
  return pread_all(file_->fd, static_cast<char*>(buf), n, pos) ? n : 0;
}

LoadScope::LoadScope(bool signal_handler) {
  static std::once_flag once;
  std::call_once(once, install_allocator);
  t_loading = true;
  t_without_handler = !signal_handler;
}

LoadScope::~LoadScope() {
  t_loading = false;
  t_without_handler = false;
}

namespace {

void release_mapping(void* context) {
  Region* r = static_cast<Region*>(context);
  r->state.store(kDead, std::memory_order_release);
  munmap(r->map_base, r->map_length);
  if (r->file) r->file->unref();
  r->file = nullptr;
}

// A record's bytes (pending, or a handler's region nothing read) as a private (copy-on-write) mapping
// of the file, given to its storage in place of the region, which is then freed. False when it
// cannot be mapped.
bool map_record(Region& r, c10::StorageImpl* storage) {
  const size_t page = page_size();
  const uint64_t page_offset = r.file_offset / page * page;
  const size_t delta = size_t(r.file_offset - page_offset);
  const size_t length = (delta + r.bytes + page - 1) / page * page;
  const int slot = g_region_count.load(std::memory_order_relaxed);
  if (slot >= kMaxRegions) return false;
  void* mapping = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, r.file->fd, off_t(page_offset));
  if (mapping == MAP_FAILED) return false;
  Region& m = g_regions[slot];
  m.base = static_cast<char*>(mapping) + delta;
  m.mapped = r.bytes;
  m.bytes = r.bytes;
  m.file = r.file;  // the file reference moves to the mapping
  m.file_offset = r.file_offset;
  m.map_base = mapping;
  m.map_length = length;
  m.state.store(kMapped, std::memory_order_release);
  g_region_count.store(slot + 1, std::memory_order_release);
  r.file = nullptr;
  // The old DataPtr goes at the end of this statement, and with it the reserved region.
  storage->set_data_ptr(c10::DataPtr(m.base, &m, &release_mapping, c10::Device(c10::DeviceType::CPU)));
  return true;
}

// A pending record nothing reached: read into its region now, as libtorch would have.
void read_record(Region& r) {
  if (mprotect(r.base, r.mapped, PROT_READ | PROT_WRITE) != 0 ||
      !pread_all(r.file->fd, r.base, r.bytes, r.file_offset))
    throw std::runtime_error(std::string("reading a weight record failed: ") + std::strerror(errno));
  r.state.store(kReserved, std::memory_order_release);
  r.file->unref();
  r.file = nullptr;
}

// /proc/self/pagemap: whether any page of [p, p + n) is a private copy (written since mapped). A
// present page that is not a file page is one; so is any doubt (the file unreadable).
bool written_since_mapped(const char* p, size_t n) {
  const size_t page = page_size();
  static const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  const uint64_t first = uint64_t(reinterpret_cast<uintptr_t>(p)) / page;
  const uint64_t last = (uint64_t(reinterpret_cast<uintptr_t>(p)) + n - 1) / page;
  uint64_t entries[512];
  for (uint64_t at = first; at <= last;) {
    const size_t count = size_t(std::min<uint64_t>(512, last - at + 1));
    if (!pread_all(fd, reinterpret_cast<char*>(entries), count * 8, at * 8)) return true;
    for (size_t i = 0; i < count; ++i) {
      const bool present = entries[i] >> 63 & 1, swapped = entries[i] >> 62 & 1, file = entries[i] >> 61 & 1;
      if (swapped || (present && !file)) return true;
    }
    at += count;
  }
  return false;
}

// A handler's region that nothing has read yet: all of it still in the file.
bool untouched(const Region& r) {
  for (size_t i = 0, n = (r.mapped + kChunk - 1) / kChunk; i < n; ++i)
    if (r.chunks[i].load(std::memory_order_acquire) != kUnread) return false;
  return true;
}

}  // namespace

void settle(const torch::jit::Module& module) {
  // Pending records, and the handler's regions the load did not touch: the handler would copy those
  // from the page cache into fresh memory chunk by chunk on first touch (a read() per chunk, and a
  // page fault per page of the copy: the 20-model batch took 7.9 s that way, 4.0-4.7 s mapped);
  // mapped, a touch maps the page cache's own page.
  std::unordered_map<const void*, Region*> pending;
  for (int i = g_region_count.load(std::memory_order_acquire) - 1; i >= 0; --i) {
    const int state = g_regions[i].state.load(std::memory_order_acquire);
    if (state == kPending || (state == kLazy && untouched(g_regions[i]))) pending[g_regions[i].base] = &g_regions[i];
  }
  if (pending.empty()) return;
  auto consider = [&](const at::Tensor& t) {
    if (!t.defined() || !t.has_storage()) return;
    c10::StorageImpl* storage = t.storage().unsafeGetStorageImpl();
    auto it = pending.find(storage->data());
    if (it != pending.end() && map_record(*it->second, storage)) pending.erase(it);
  };
  // Every value the module holds: attributes of every object, inside lists, tuples and dicts.
  std::unordered_set<const void*> seen;
  std::function<void(const c10::IValue&)> visit = [&](const c10::IValue& v) {
    if (v.isTensor()) {
      consider(v.toTensor());
    } else if (v.isObject()) {
      auto object = v.toObject();
      if (!seen.insert(object.get()).second) return;
      for (const auto& slot : object->slots()) visit(slot);
    } else if (v.isTuple()) {
      for (const auto& e : v.toTupleRef().elements()) visit(e);
    } else if (v.isList()) {
      for (const auto& e : v.toListRef()) visit(e);
    } else if (v.isGenericDict()) {
      for (const auto& kv : v.toGenericDict()) {
        visit(kv.key());
        visit(kv.value());
      }
    }
  };
  visit(module._ivalue());
  // The code's tensor constants (constants.pkl).
  std::function<void(torch::jit::Block*)> constants = [&](torch::jit::Block* block) {
    for (auto* n : block->nodes()) {
      for (auto* b : n->blocks()) constants(b);
      if (n->kind() == c10::prim::Constant && n->output()->type()->cast<c10::TensorType>())
        if (auto value = torch::jit::toIValue(n->output())) visit(*value);
    }
  };
  for (auto* function : module._ivalue()->compilation_unit()->get_functions()) {
    if (pending.empty()) break;
    if (!function->isGraphFunction()) continue;
    try {
      constants(torch::jit::toGraphFunction(*function).graph()->block());
    } catch (const std::exception&) {
      // A function that does not compile holds nothing reachable; its records are read below.
    }
  }
  // Unreached pending records are read now; the handler's stay lazy (it fills them on first touch).
  for (auto& [base, region] : pending)
    if (region->state.load(std::memory_order_acquire) == kPending) read_record(*region);
}

std::optional<FileSpan> file_span(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  if (!n) return std::nullopt;
  const Region* r = find_region(p, kMapped);
  if (r) {
    if (p + n > r->base + r->bytes || written_since_mapped(p, n)) return std::nullopt;
  } else {
    r = find_region(p, kLazy);
    if (!r || p + n > r->base + r->bytes) return std::nullopt;
    for (size_t i = size_t(p - r->base) / kChunk, last = (size_t(p - r->base) + n - 1) / kChunk; i <= last; ++i)
      if (r->chunks[i].load(std::memory_order_acquire) != kUnread) return std::nullopt;
  }
  struct stat st;
  if (fstat(r->file->fd, &st) != 0) return std::nullopt;
  FileSpan span;
  span.device = uint64_t(st.st_dev);
  span.inode = uint64_t(st.st_ino);
  span.size = uint64_t(st.st_size);
  span.mtime_ns = uint64_t(st.st_mtim.tv_sec) * 1000000000ull + uint64_t(st.st_mtim.tv_nsec);
  span.offset = r->file_offset + uint64_t(p - r->base);
  return span;
}

namespace {
std::atomic<uint64_t> g_copied_from_files{0};

bool copy_counted(int in_fd, uint64_t offset, int out_fd, size_t n) {
  if (!copy_file_bytes(in_fd, offset, out_fd, n)) return false;
  g_copied_from_files.fetch_add(n, std::memory_order_relaxed);
  return true;
}
}  // namespace

uint64_t bytes_copied_from_files() { return g_copied_from_files.load(std::memory_order_relaxed); }

int register_mapping(const void* base, size_t length, int fd) {
  if (!enabled() || !base || !length || fd < 0) return -1;
  const int slot = g_region_count.load(std::memory_order_relaxed);
  if (slot >= kMaxRegions) return -1;
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return -1;
  Region& r = g_regions[slot];
  r.base = static_cast<char*>(const_cast<void*>(base));
  r.mapped = length;
  r.bytes = length;
  r.file = new FileHandle;
  r.file->fd = copy;
  r.file_offset = 0;
  r.map_base = nullptr;  // the owner's to unmap
  r.map_length = 0;
  r.state.store(kMapped, std::memory_order_release);
  g_region_count.store(slot + 1, std::memory_order_release);
  return slot;
}

void unregister_mapping(int handle) {
  if (handle < 0 || handle >= kMaxRegions) return;
  Region& r = g_regions[handle];
  if (r.map_base || r.state.load(std::memory_order_acquire) != kMapped) return;  // not a registered mapping
  r.state.store(kDead, std::memory_order_release);
  if (r.file) r.file->unref();
  r.file = nullptr;
}

bool write_bytes(int out_fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  // A mapped record nothing wrote to: file to file.
  if (Region* m = n ? find_region(p, kMapped) : nullptr; m && p + n <= m->base + m->bytes) {
    if (!written_since_mapped(p, n)) return copy_counted(m->file->fd, m->file_offset + uint64_t(p - m->base), out_fd, n);
    return write_memory(out_fd, p, n);
  }
  Region* r = n ? find_region(p, kLazy) : nullptr;
  if (!r || p + n > r->base + r->bytes) return write_memory(out_fd, p, n);
  size_t at = size_t(p - r->base);
  const size_t end = at + n;
  while (at < end) {
    // A run of chunks in the same state: untouched ones straight from the file.
    const bool unread = r->chunks[at / kChunk].load(std::memory_order_acquire) == kUnread;
    size_t run_end = std::min(end, (at / kChunk + 1) * kChunk);
    while (run_end < end && (r->chunks[run_end / kChunk].load(std::memory_order_acquire) == kUnread) == unread)
      run_end = std::min(end, (run_end / kChunk + 1) * kChunk);
    bool ok = unread ? copy_counted(r->file->fd, r->file_offset + at, out_fd, run_end - at)
                     : write_memory(out_fd, r->base + at, run_end - at);
    if (!ok) return false;
    at = run_end;
  }
  return true;
}

}  // namespace t2o::core::lazy_weights
