// Deferred tensors (core/src/common/deferred_tensors.cpp): BatchNorm folding's large weights are
// computed by the writer block by block, or whole on the first other read; either way the bytes are
// the ones computing the tensor eagerly gives.
#include <gtest/gtest.h>

#include "common/deferred_tensors.hpp"

#include <ATen/ATen.h>

#include <string>

namespace {

namespace deferred = t2o::core::deferred;

// W * scale per row, as the fold computes it; counts the rows it was asked for.
struct Scaled {
  at::Tensor w, scale;
  int64_t* rows_computed;
  void operator()(int64_t first, int64_t count, at::Tensor& out) const {
    *rows_computed += count;
    at::mul_out(out, w.narrow(0, first, count), scale.narrow(0, first, count).reshape({count, 1}));
  }
};

std::string streamed(const at::Tensor& t, size_t block) {
  std::string bytes;
  deferred::stream_bytes(t, block, [&](const char* p, size_t n) { bytes.append(p, n); });
  return bytes;
}

std::string bytes_of(const at::Tensor& t) {
  return std::string(static_cast<const char*>(t.data_ptr()), t.nbytes());
}

TEST(DeferredTensors, WriterComputesTheRowsInBlocksAsEagerMultiplicationWould) {
  // 3000 rows of 700 floats (8.4 MB): blocks of 4 MiB end inside the tensor, the last one ragged.
  const at::Tensor w = at::randn({3000, 700}), scale = at::rand({3000}) + 0.5;
  const at::Tensor eager = w * scale.reshape({3000, 1});
  int64_t rows = 0;
  at::Tensor placeholder = at::empty({3000, 700});
  deferred::defer(placeholder, Scaled{w, scale, &rows});
  EXPECT_EQ(streamed(placeholder, 64u << 20), bytes_of(eager));
  EXPECT_EQ(rows, 3000);
  // Streaming computes into its own buffer: the placeholder is still only registered, so a second
  // write computes again, and a read through materialize() fills it once.
  EXPECT_EQ(streamed(placeholder, 1u << 20), bytes_of(eager));
  EXPECT_EQ(rows, 6000);
  deferred::materialize(placeholder);
  EXPECT_EQ(rows, 9000);
  EXPECT_TRUE(at::equal(placeholder, eager));
  deferred::materialize(placeholder);  // once only
  EXPECT_EQ(streamed(placeholder, 1u << 20), bytes_of(eager));
  EXPECT_EQ(rows, 9000);
}

TEST(DeferredTensors, AViewIsComputedWholeFirst) {
  const at::Tensor w = at::randn({40, 8}), scale = at::rand({40});
  int64_t rows = 0;
  at::Tensor placeholder = at::empty({40, 8});
  deferred::defer(placeholder, Scaled{w, scale, &rows});
  const at::Tensor tail = placeholder.narrow(0, 30, 10);
  EXPECT_EQ(streamed(tail, 1u << 20), bytes_of((w * scale.reshape({40, 1})).narrow(0, 30, 10).contiguous()));
  EXPECT_EQ(rows, 40);
}

TEST(DeferredTensors, OtherTensorsAreWrittenFromTheirMemory) {
  const at::Tensor t = at::randn({5, 5});
  deferred::materialize(t);  // nothing registered: nothing happens
  EXPECT_EQ(streamed(t, 16), bytes_of(t));
}

}  // namespace
