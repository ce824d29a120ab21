#include "common/deferred_tensors.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <vector>
#include <unordered_map>

namespace t2o::core::deferred {

namespace {

struct Entry {
  c10::weak_intrusive_ptr<c10::StorageImpl> storage;  // the registration ends with the storage
  std::vector<int64_t> sizes;                          // of the registered tensor
  RowFill fill;
};

std::mutex mutex;
std::unordered_map<const c10::StorageImpl*, Entry>& registry() {
  static auto* r = new std::unordered_map<const c10::StorageImpl*, Entry>();  // never destroyed: used at exit
  return *r;
}

// Entries whose storage is gone (an export that failed before writing): their fills hold the
// layers' weights, so they are dropped as soon as anything registers again.
void prune() {
  auto& r = registry();
  for (auto it = r.begin(); it != r.end();)
    it = it->second.storage.expired() ? r.erase(it) : std::next(it);
}

const c10::StorageImpl* key(const at::Tensor& t) { return t.defined() ? t.storage().unsafeGetStorageImpl() : nullptr; }

std::optional<Entry> entry_of(const at::Tensor& t) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = registry().find(key(t));
  if (it == registry().end() || it->second.storage.expired()) return std::nullopt;
  return it->second;
}

}  // namespace

void defer(const at::Tensor& placeholder, RowFill fill) {
  TORCH_CHECK(placeholder.dim() >= 1 && placeholder.is_contiguous() && placeholder.storage_offset() == 0,
              "deferred tensor: must be contiguous, at least 1-d, at the start of its storage");
  std::lock_guard<std::mutex> lock(mutex);
  prune();
  registry().insert_or_assign(key(placeholder),
                              Entry{placeholder.storage().getWeakStorageImpl(), placeholder.sizes().vec(), std::move(fill)});
}

void materialize(const at::Tensor& t) {
  if (!t.defined()) return;
  auto entry = entry_of(t);
  if (!entry) return;
  // The registered tensor, whole: `t` may be a view of it.
  at::Tensor whole = at::empty({0}, t.options()).set_(t.storage(), 0, entry->sizes);
  entry->fill(0, whole.size(0), whole);
  std::lock_guard<std::mutex> lock(mutex);
  registry().erase(key(t));
}

void stream_bytes(const at::Tensor& t, size_t block_bytes, const std::function<void(const char*, size_t)>& sink) {
  const size_t n = t.nbytes();
  auto entry = entry_of(t);
  if (!entry || t.storage_offset() != 0 || t.sizes() != at::IntArrayRef(entry->sizes)) {
    materialize(t);  // a view of a pending tensor: computed whole first
    const char* p = static_cast<const char*>(t.data_ptr());
    for (size_t done = 0; done < n; done += block_bytes) sink(p + done, std::min(block_bytes, n - done));
    return;
  }
  const int64_t rows = t.size(0);
  const size_t row_bytes = rows ? n / size_t(rows) : 0;
  if (rows == 0 || row_bytes == 0) return;
  // Computed blocks are small: the buffer stays in cache and is the only new memory touched.
  constexpr size_t kComputeBlock = size_t(4) << 20;
  const int64_t per_block = std::max<int64_t>(1, int64_t(std::min(block_bytes, kComputeBlock) / row_bytes));
  auto shape = t.sizes().vec();
  shape[0] = std::min(per_block, rows);
  at::Tensor buffer = at::empty(shape, t.options());
  for (int64_t first = 0; first < rows; first += per_block) {
    const int64_t count = std::min(per_block, rows - first);
    at::Tensor out = buffer.narrow(0, 0, count);
    entry->fill(first, count, out);
    sink(static_cast<const char*>(out.data_ptr()), size_t(count) * row_bytes);
  }
}

}  // namespace t2o::core::deferred
