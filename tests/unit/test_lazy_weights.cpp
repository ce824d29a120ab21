// Lazy weights (core/src/load/lazy_weights.cpp): large records stay in the file until read; a read fills
// the touched chunk from the file (from any thread); the writer copies untouched bytes file-to-file.
#include <gtest/gtest.h>

#include "load/lazy_weights.hpp"
#include "load/model_loader.hpp"
#include "prepare/passes.hpp"

#include <torch/script.h>

#include <csignal>
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

void (*segv_handler())(int) {
  struct sigaction current {};
  sigaction(SIGSEGV, nullptr, &current);
  return current.sa_handler;
}

// Without the signal handler (the library's default): after the load each large record is a private
// mapping of the file. Its bytes are the file's, written file-to-file while nothing wrote to them, from
// memory once something did (a private copy: the .pt stays as it was). No handler is installed.
TEST(LazyWeights, MappedRecordsWithoutTheHandler) {
  if (!lazy::enabled()) GTEST_SKIP() << "T2O_EAGER_WEIGHTS is set";
  Saved s = save_model();
  const std::string file_before = read_all(s.path);
  auto before = segv_handler();
  auto m = t2o::core::load_torchscript(s.path.string(), /*lazy_weights=*/true, /*signal_handler=*/false);
  EXPECT_EQ(segv_handler(), before);
  at::Tensor big = m.attr("big").toTensor(), other = m.attr("other").toTensor(), small = m.attr("small").toTensor();
  // Mapped: the data sits where the record does in the file, modulo the page size.
  EXPECT_NE(reinterpret_cast<uintptr_t>(big.data_ptr()) % 4096, 0u);
  EXPECT_EQ(write_through(big, "mapped_big.bin"), bytes_of(s.big));
  EXPECT_EQ(write_through(other.narrow(0, 100, 300), "mapped_slice.bin"), bytes_of(s.other.narrow(0, 100, 300)));
  EXPECT_TRUE(torch::equal(big, s.big));
  EXPECT_TRUE(torch::equal(other, s.other));
  EXPECT_TRUE(torch::equal(small, s.small));
  // Written: the copy in memory is what is written; the file is unchanged.
  other[5][7] = -1.0f;
  at::Tensor expected = s.other.clone();
  expected[5][7] = -1.0f;
  EXPECT_EQ(write_through(other, "mapped_written.bin"), bytes_of(expected));
  EXPECT_EQ(read_all(s.path), file_before);
  auto prepared = t2o::core::prepare(m, s.path.string());
  auto y = prepared.module.forward({torch::zeros({1})}).toTensor();
  EXPECT_TRUE(torch::allclose(y, (s.big.sum() + expected.sum() + s.small.sum()).reshape({1}), 1e-5, 1e-3));
  fs::remove(s.path);
}

// An archive whose load runs code (a __setstate__ that reads the weights) loads eagerly without the
// handler: nothing is unreadable while that code runs.
TEST(LazyWeights, ArchivesWhoseLoadRunsCodeLoadEagerlyWithoutTheHandler) {
  torch::manual_seed(3);
  at::Tensor w = torch::randn({(2 << 20) / 4});
  torch::jit::Module m("Stateful");
  m.register_attribute("w", c10::TensorType::get(), w.clone());
  m.register_attribute("total", c10::FloatType::get(), 0.0);
  m.define(R"(
def __getstate__(self):
    return (self.w, 0.0)
def __setstate__(self, state: Tuple[Tensor, float]):
    self.w = state[0]
    self.total = float(state[0].sum())
def forward(self, x):
    return x + self.w.sum()
)");
  const fs::path path = temp_path("stateful.pt");
  m.save(path.string());
  auto before = segv_handler();
  auto loaded = t2o::core::load_torchscript(path.string(), /*lazy_weights=*/true, /*signal_handler=*/false);
  EXPECT_EQ(segv_handler(), before);
  EXPECT_TRUE(torch::equal(loaded.attr("w").toTensor(), w));
  EXPECT_NEAR(loaded.attr("total").toDouble(), w.sum().item<double>(), 1e-2);
  fs::remove(path);
}

// With the handler (the program's way), an archive whose load runs code loads lazily too: what its
// __setstate__ reads is filled by the handler during the load (a region of its own, page-aligned), and
// once the load returns a record nothing read becomes a private mapping of the file (its data at the
// record's offset modulo the page), as without the handler. Both write their own bytes.
TEST(LazyWeights, WithTheHandlerWhatTheLoadReadIsFilledAndTheRestMapped) {
  if (!lazy::enabled()) GTEST_SKIP() << "T2O_EAGER_WEIGHTS is set";
  torch::manual_seed(5);
  at::Tensor w = torch::randn({(2 << 20) / 4}), u = torch::randn({(3 << 20) / 4 + 3});
  torch::jit::Module m("ReadsOne");
  m.register_attribute("w", c10::TensorType::get(), w.clone());
  m.register_attribute("u", c10::TensorType::get(), u.clone());
  m.register_attribute("total", c10::FloatType::get(), 0.0);
  m.define(R"(
def __getstate__(self):
    return (self.w, self.u, 0.0)
def __setstate__(self, state: Tuple[Tensor, Tensor, float]):
    self.w = state[0]
    self.u = state[1]
    self.total = float(state[0].sum())
def forward(self, x):
    return x + self.w.sum() + self.u.sum()
)");
  const fs::path path = temp_path("reads_one.pt");
  m.save(path.string());
  auto loaded = t2o::core::load_torchscript(path.string(), /*lazy_weights=*/true, /*signal_handler=*/true);
  at::Tensor lw = loaded.attr("w").toTensor(), lu = loaded.attr("u").toTensor();
  EXPECT_NEAR(loaded.attr("total").toDouble(), w.sum().item<double>(), 1e-2);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(lw.data_ptr()) % 4096, 0u);  // the handler's region
  EXPECT_NE(reinterpret_cast<uintptr_t>(lu.data_ptr()) % 4096, 0u);  // a mapping of the file
  EXPECT_EQ(write_through(lw, "filled_w.bin"), bytes_of(w));
  EXPECT_EQ(write_through(lu, "mapped_u.bin"), bytes_of(u));
  EXPECT_TRUE(torch::equal(lw, w));
  EXPECT_TRUE(torch::equal(lu, u));
  fs::remove(path);
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
