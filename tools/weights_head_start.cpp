#include "weights_head_start.hpp"

#include "load/zip_members.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace t2o::cli {

namespace {

// lazy_weights' kMinLazyBytes: smaller records are read into memory by the load, so the writer never
// copies them from the file.
constexpr unsigned long long kMinRecordBytes = 1ull << 20;
// The writer's kInlineLimitBytes: past it, the weights always go to OUT.data.
constexpr unsigned long long kInlineLimitBytes = 2000000000ull;
constexpr size_t kPiece = size_t(64) << 20;  // copied per call, checking for a stop between

// export's options that take a value as the next word (export_options.cpp, export_command.cpp).
bool takes_value(const std::string& word) {
  for (const char* name : {"-o", "--output", "--opset", "--input", "--input-names", "--output-names", "--dynamic-axes",
                           "--example-inputs", "--input-range", "--dynamic-input", "--operator-export-type",
                           "--plugin-path", "--enable-pack", "--custom-opset", "--default-dtype", "--training",
                           "--load-library", "--batch", "--batch-report"})
    if (word == name) return true;
  return false;
}

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

std::mutex g_join_mutex;

}  // namespace

std::unique_ptr<WeightsHeadStart> WeightsHeadStart::start(const std::vector<std::string>& words) {
  if (words.empty() || words[0] != "export" || env_on("T2O_NO_HEAD_START") || env_on("T2O_EAGER_WEIGHTS"))
    return nullptr;
  // The command line as export reads it, as far as this needs: one model, its output, --external-data.
  std::string model, output;
  bool external = false;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--batch" || w.rfind("--batch=", 0) == 0 || w == "--no-weights" || w == "--weights-as-inputs" ||
        w == "--help" || w == "-h")
      return nullptr;
    if (w == "--external-data") {
      external = true;
    } else if (w == "-o" || w == "--output") {
      if (i + 1 >= words.size()) return nullptr;
      output = words[++i];
    } else if (w.rfind("-o=", 0) == 0 || w.rfind("--output=", 0) == 0) {
      output = w.substr(w.find('=') + 1);
    } else if (takes_value(w)) {
      ++i;
    } else if (w.size() > 1 && w[0] == '-') {
      // a flag, or an option given as NAME=VALUE
    } else {
      if (!model.empty()) return nullptr;  // export will refuse it
      model = w;
    }
  }
  if (model.empty() || output.empty()) return nullptr;
  // Records cannot add up to more than the file: a file under the limit needs no look inside.
  struct stat st;
  if (::stat(model.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  if (!external && (unsigned long long)st.st_size <= kInlineLimitBytes) return nullptr;

  std::unique_ptr<WeightsHeadStart> h(new WeightsHeadStart());
  h->model_ = model;
  h->output_ = output;
  try {
    core::zip::File file(model);
    unsigned long long at = 0, total = 0;
    std::vector<core::zip::Member> members = core::zip::read_members(file, core::ArchiveBounds{});
    std::sort(members.begin(), members.end(),
              [](const core::zip::Member& a, const core::zip::Member& b) { return a.data_offset < b.data_offset; });
    for (const auto& m : members) {
      if (m.method != 0 || m.uncompressed < kMinRecordBytes || !is_weight_record(m.name)) continue;
      at = (at + 63) / 64 * 64;
      h->records_.insert(h->records_.end(), {m.data_offset, m.uncompressed, at});
      at += m.uncompressed;
      total += m.uncompressed;
    }
    if (h->records_.empty() || (!external && total <= kInlineLimitBytes)) return nullptr;
  } catch (const core::zip::Refusal&) {
    return nullptr;  // export says what is wrong with the file
  } catch (const std::exception&) {
    return nullptr;
  }

  h->in_fd_ = ::open(model.c_str(), O_RDONLY | O_CLOEXEC);
  if (h->in_fd_ < 0) return nullptr;
  if (fstat(h->in_fd_, &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  // The writer's temporary name for OUT.data (model_writer.cpp's TempFile), in this process.
  h->temp_ = output + ".data.tmp." + std::to_string(getpid());
  h->out_fd_ = ::open(h->temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (h->out_fd_ < 0) return nullptr;

  t2o_weights_head_start& v = h->view_;
  v.owner = h.get();
  v.model_path = h->model_.c_str();
  v.output_path = h->output_.c_str();
  v.data_temp_path = h->temp_.c_str();
  v.device = st.st_dev;
  v.inode = st.st_ino;
  v.size = (unsigned long long)st.st_size;
  v.mtime_ns = (unsigned long long)st.st_mtim.tv_sec * 1000000000ull + (unsigned long long)st.st_mtim.tv_nsec;
  v.record_count = h->records_.size() / 3;
  v.records = h->records_.data();
  v.wait = &WeightsHeadStart::wait;
  v.stop = &WeightsHeadStart::stop;
  try {
    h->thread_ = std::thread([p = h.get()] { p->copy(); });
  } catch (const std::system_error&) {
    return nullptr;  // no thread: no head start (the destructor removes the file)
  }
  return h;
}

void WeightsHeadStart::copy() {
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

unsigned long long WeightsHeadStart::wait(const t2o_weights_head_start* self) {
  auto* h = static_cast<WeightsHeadStart*>(self->owner);
  std::lock_guard<std::mutex> lock(g_join_mutex);
  if (h->thread_.joinable()) h->thread_.join();
  return h->copied_.load(std::memory_order_acquire);
}

void WeightsHeadStart::stop(const t2o_weights_head_start* self) {
  static_cast<WeightsHeadStart*>(self->owner)->stop_.store(true, std::memory_order_relaxed);
}

WeightsHeadStart::~WeightsHeadStart() {
  stop_.store(true, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(g_join_mutex);
    if (thread_.joinable()) thread_.join();
  }
  if (in_fd_ >= 0) ::close(in_fd_);
  if (out_fd_ >= 0) {
    ::close(out_fd_);
    // Renamed into place by the writer, or removed by it after a failure; else still here.
    ::unlink(temp_.c_str());
  }
}

}  // namespace t2o::cli
