// Lazy weights (core/src/load/lazy_weights.cpp): large records stay in the file until read; a read fills
// the touched chunk from the file (from any thread); the writer copies untouched bytes file-to-file.
#include <gtest/gtest.h>

#include "load/lazy_weights.hpp"
#include "load/model_loader.hpp"
#include "prepare/passes.hpp"

#include <torch/script.h>

#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
namespace lazy = t2o::core::lazy_weights;

fs::path temp_path(const std::string& name) {
  return fs::temp_directory_path() / ("t2o_lazy_" + std::to_string(getpid()) + "_" + name);
}

// A module whose weights are 5 MiB + 4 bytes and 3 MiB (several 2 MiB chunks and a ragged end) and
// a small bias (below the lazy threshold), saved with torch::jit.
struct Saved {
  fs::path path;
  at::Tensor big, other, small;
};

Saved save_model() {
  torch::manual_seed(7);
  Saved s;
  s.big = torch::randn({(5 << 20) / 4 + 1});
  s.other = torch::arange(0, 3 << 18, torch::kFloat32).reshape({768, 1024});
  s.small = torch::randn({16});
  torch::jit::Module m("Weights");
  m.register_parameter("big", s.big.clone(), false);
  m.register_parameter("other", s.other.clone(), false);
  m.register_parameter("small", s.small.clone(), false);
  m.define("def forward(self, x):\n  return x + self.big.sum() + self.other.sum() + self.small.sum()\n");
  s.path = temp_path("model.pt");
  m.save(s.path.string());
  return s;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string write_through(const at::Tensor& t, const std::string& name) {
  const fs::path out = temp_path(name);
  int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  EXPECT_GE(fd, 0);
  EXPECT_TRUE(lazy::write_bytes(fd, t.data_ptr(), t.nbytes()));
  ::close(fd);
  std::string bytes = read_all(out);
  fs::remove(out);
  return bytes;
}

std::string bytes_of(const at::Tensor& t) {
  return std::string(static_cast<const char*>(t.data_ptr()), t.nbytes());
}

TEST(LazyWeights, UntouchedWeightsAreCopiedFromTheFile) {
  if (!lazy::enabled()) GTEST_SKIP() << "T2O_EAGER_WEIGHTS is set";
  Saved s = save_model();
  auto m = t2o::core::load_torchscript(s.path.string(), /*lazy_weights=*/true);
  at::Tensor big = m.attr("big").toTensor(), other = m.attr("other").toTensor();
  // Written before anything reads them: straight from the file, byte-exact.
  EXPECT_EQ(write_through(big, "big.bin"), bytes_of(s.big));
  EXPECT_EQ(write_through(other.narrow(0, 100, 300), "slice.bin"), bytes_of(s.other.narrow(0, 100, 300)));
  fs::remove(s.path);
}

TEST(LazyWeights, FirstReadFillsFromTheFileOnAnyThread) {
  Saved s = save_model();
  auto m = t2o::core::load_torchscript(s.path.string(), /*lazy_weights=*/true);
  at::Tensor big = m.attr("big").toTensor(), other = m.attr("other").toTensor(),
             small = m.attr("small").toTensor();
  // Two threads touch the same chunks at once; both must see the file's bytes, never zeros.
  at::Tensor a, b;
  std::thread t1([&] { a = big * 2; });
  std::thread t2([&] { b = big * 2; });
  t1.join();
  t2.join();
  EXPECT_TRUE(torch::equal(a, s.big * 2));
  EXPECT_TRUE(torch::equal(b, s.big * 2));
  // A partly read tensor: the touched chunk comes from memory, the rest from the file.
  EXPECT_EQ(other[700][5].item<float>(), s.other[700][5].item<float>());
  EXPECT_EQ(write_through(other, "other.bin"), bytes_of(s.other));
  EXPECT_TRUE(torch::equal(other, s.other));
  EXPECT_TRUE(torch::equal(small, s.small));
  // And the frozen, prepared module computes with the right values.
  auto prepared = t2o::core::prepare(m, s.path.string());
  auto y = prepared.module.forward({torch::zeros({1})}).toTensor();
  auto expected = s.big.sum() + s.other.sum() + s.small.sum();
  EXPECT_TRUE(torch::allclose(y, expected.reshape({1}), 1e-5, 1e-3));
  fs::remove(s.path);
}

TEST(LazyWeights, WeightsOutliveTheDeletedFile) {
  // The reader keeps the file open: deleting the .pt after loading changes nothing.
  Saved s = save_model();
  auto m = t2o::core::load_torchscript(s.path.string(), /*lazy_weights=*/true);
  fs::remove(s.path);
  at::Tensor big = m.attr("big").toTensor();
  EXPECT_EQ(write_through(big, "after_delete.bin"), bytes_of(s.big));
  EXPECT_TRUE(torch::equal(big, s.big));
}

TEST(LazyWeights, RealCrashesStillCrash) {
  // The SIGSEGV handler passes faults outside lazy regions on: a null write still kills the process.
  Saved s = save_model();
  auto m = t2o::core::load_torchscript(s.path.string(), /*lazy_weights=*/true);  // installs the handler
  fs::remove(s.path);
  EXPECT_DEATH(
      {
        volatile int* p = nullptr;
        *p = 1;
      },
      "");
}

}  // namespace
