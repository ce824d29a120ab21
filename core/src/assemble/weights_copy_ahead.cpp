#include "assemble/weights_copy_ahead.hpp"

#include "load/zip_members.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace t2o::core {

namespace {

// lazy_weights' kMinLazyBytes: smaller records are read into memory by the load, so the writer never
// copies them from the file.
constexpr unsigned long long kMinRecordBytes = 1ull << 20;
// The writer's kInlineLimitBytes: past it, the weights always go to OUT.data.
constexpr unsigned long long kInlineLimitBytes = 2000000000ull;
constexpr size_t kPiece = size_t(64) << 20;  // copied per call, checking for a stop between

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

// A weight record: ARCHIVE/data/KEY, KEY all digits (torch.jit.save's tensor storages).
bool is_weight_record(const std::string& name) {
  const size_t slash = name.find('/');
  if (slash == std::string::npos || name.compare(slash, 6, "/data/") != 0) return false;
  const std::string key = name.substr(slash + 6);
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::unique_ptr<WeightsCopyAhead> WeightsCopyAhead::start(const std::string& model, const std::string& output,
                                                          bool external_data) {
  if (model.empty() || output.empty() || env_on("T2O_NO_HEAD_START") || env_on("T2O_EAGER_WEIGHTS")) return nullptr;
  // Records cannot add up to more than the file: a file under the limit needs no look inside.
  struct stat st;
  if (::stat(model.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  if (!external_data && (unsigned long long)st.st_size <= kInlineLimitBytes) return nullptr;

  std::unique_ptr<WeightsCopyAhead> h(new WeightsCopyAhead());
  h->model_ = model;
  h->output_ = output;
  try {
    zip::File file(model);
    unsigned long long at = 0, total = 0;
    std::vector<zip::Member> members = zip::read_members(file, ArchiveBounds{});
    std::sort(members.begin(), members.end(),
              [](const zip::Member& a, const zip::Member& b) { return a.data_offset < b.data_offset; });
    for (const auto& m : members) {
      if (m.method != 0 || m.uncompressed < kMinRecordBytes || !is_weight_record(m.name)) continue;
      at = (at + 63) / 64 * 64;
      h->records_.insert(h->records_.end(), {m.data_offset, m.uncompressed, at});
      at += m.uncompressed;
      total += m.uncompressed;
    }
    if (h->records_.empty() || (!external_data && total <= kInlineLimitBytes)) return nullptr;
  } catch (const std::exception&) {
    return nullptr;  // the export says what is wrong with the file
  }

  h->in_fd_ = ::open(model.c_str(), O_RDONLY | O_CLOEXEC);
  if (h->in_fd_ < 0) return nullptr;
  if (fstat(h->in_fd_, &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  // The writer's temporary name for OUT.data (model_writer.cpp's TempFile), in this process.
  h->temp_ = output + ".data.tmp." + std::to_string(getpid());
  h->out_fd_ = ::open(h->temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (h->out_fd_ < 0) return nullptr;

  h->device = st.st_dev;
  h->inode = st.st_ino;
  h->size = (uint64_t)st.st_size;
  h->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
  try {
    h->thread_ = std::thread([p = h.get()] { p->copy(); });
  } catch (const std::system_error&) {
    return nullptr;  // no thread: no copy ahead (the destructor removes the file)
  }
  return h;
}

void WeightsCopyAhead::copy() {
  for (size_t k = 0; k < records_.size(); k += 3) {
    loff_t from = loff_t(records_[k]), to = loff_t(records_[k + 2]);
    unsigned long long left = records_[k + 1];
    while (left) {
      if (stop_.load(std::memory_order_relaxed)) return;
      ssize_t n = copy_file_range(in_fd_, &from, out_fd_, &to, size_t(std::min<unsigned long long>(left, kPiece)), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // a file system without it, a full disk: the writer writes the rest
      left -= (unsigned long long)n;
    }
    copied_.store(k / 3 + 1, std::memory_order_release);
  }
}

size_t WeightsCopyAhead::wait() {
  std::lock_guard<std::mutex> lock(join_mutex_);
  if (thread_.joinable()) thread_.join();
  return size_t(copied_.load(std::memory_order_acquire));
}

void WeightsCopyAhead::stop() { stop_.store(true, std::memory_order_relaxed); }

WeightsCopyAhead::~WeightsCopyAhead() {
  stop_.store(true, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(join_mutex_);
    if (thread_.joinable()) thread_.join();
  }
  if (in_fd_ >= 0) ::close(in_fd_);
  if (out_fd_ >= 0) {
    ::close(out_fd_);
    // Renamed into place by the writer, or removed by it after a failure; else still here.
    ::unlink(temp_.c_str());
  }
}

}  // namespace t2o::core
