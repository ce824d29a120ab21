// A .pt2's weights go from the archive to the ONNX file without a detour (issue 41, item 6): the PT2
// archive's raw weight records are tensors over program/'s private mapping of the file, which is
// registered with load/lazy_weights, so the writer copies what nothing wrote to file-to-file
// (copy_file_range), as it does for a TorchScript file's mapped records. Core internals, reached through
// libtorch2onnx_core.so (which exports every symbol of the core).
#include <torch2onnx/torch2onnx.hpp>

#include "load/lazy_weights.hpp"
#include "program/program_state.hpp"
#include "program/pt2_archive.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
namespace lazy = t2o::core::lazy_weights;

// The fixture with the most weights an export writes unchanged (six records of 4 KiB or more).
const fs::path kFixture = fs::path(T2O_PT2_FIXTURES) / "torch2.14" / "convnext_tiny" / "model.pt2";

fs::path work_dir(const std::string& name) {
  fs::path dir = fs::path(T2O_PT2_WEIGHTS_WORK_DIR) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string file_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string bytes_of(const at::Tensor& t) { return std::string(static_cast<const char*>(t.data_ptr()), t.nbytes()); }

std::string write_through(const at::Tensor& t, const fs::path& out) {
  int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0);
  EXPECT_TRUE(lazy::write_bytes(fd, t.data_ptr(), t.nbytes()));
  ::close(fd);
  return file_bytes(out);
}

const t2o::Registry& packs() {
  static auto registry = t2o::load_packs();
  return *registry;
}

// Every raw record is a writable tensor over the mapping: untouched, its bytes are where file_span says
// in the .pt2 and write_bytes copies them from there (the counter grows by exactly that); written to (a
// private copy of the page), they come from memory and the file keeps its bytes.
TEST(Pt2Weights, RawRecordsAreCopiedFromTheArchiveUntilWritten) {
  const fs::path dir = work_dir("records");
  const std::string archive_bytes = file_bytes(kFixture);
  t2o::core::program::Pt2Archive archive(kFixture.string());
  ASSERT_EQ(archive.layout(), t2o::core::program::Pt2Layout::Pt2Archive);
  auto state = t2o::core::program::read_program_state(archive, archive.choose_model(""));
  ASSERT_FALSE(state.empty());
  at::Tensor largest;
  for (const auto& [name, t] : state) {
    if (!t.is_contiguous() || !t.nbytes()) continue;
    if (!largest.defined() || t.nbytes() > largest.nbytes()) largest = t;
    const auto span = lazy::file_span(t.data_ptr(), t.nbytes());
    const uint64_t before = lazy::bytes_copied_from_files();
    EXPECT_EQ(write_through(t, dir / "out.bin"), bytes_of(t)) << name;
    if (!lazy::enabled()) {
      EXPECT_FALSE(span) << name << ": T2O_EAGER_WEIGHTS is set, nothing is registered";
      EXPECT_EQ(lazy::bytes_copied_from_files(), before) << name;
      continue;
    }
    ASSERT_TRUE(span) << name << ": a raw record not over the registered mapping";
    EXPECT_EQ(span->size, archive_bytes.size());
    EXPECT_EQ(archive_bytes.compare(span->offset, t.nbytes(), bytes_of(t)), 0) << name;
    EXPECT_EQ(lazy::bytes_copied_from_files() - before, t.nbytes()) << name << " was not copied file-to-file";
  }
  ASSERT_TRUE(largest.defined());
  // Copy-on-write: libtorch may write to it; the file keeps its bytes, the writer takes the new ones.
  const std::string original = bytes_of(largest);
  largest.add_(1);
  EXPECT_NE(bytes_of(largest), original);
  EXPECT_FALSE(lazy::file_span(largest.data_ptr(), largest.nbytes()));
  const uint64_t before = lazy::bytes_copied_from_files();
  EXPECT_EQ(write_through(largest, dir / "written.bin"), bytes_of(largest));
  EXPECT_EQ(lazy::bytes_copied_from_files(), before);
  EXPECT_EQ(file_bytes(kFixture), archive_bytes);
}

// A whole export: the same file, byte for byte, as with T2O_EAGER_WEIGHTS=1 (run in a child process:
// this test's own binary, as that variable is read once per process), and the weights it writes
// unchanged went file-to-file.
TEST(Pt2Weights, ExportWritesTheSameBytesAsEagerWeights) {
  t2o::ExportOptions options;
  if (const char* child_out = std::getenv("T2O_PT2_WEIGHTS_CHILD_OUT")) {  // the eager half
    ASSERT_FALSE(lazy::enabled());
    t2o::export_model(kFixture.string(), child_out, options, packs());
    EXPECT_EQ(lazy::bytes_copied_from_files(), 0u);
    return;
  }
  if (!lazy::enabled()) GTEST_SKIP() << "T2O_EAGER_WEIGHTS is set";
  const fs::path dir = work_dir("export");
  const uint64_t before = lazy::bytes_copied_from_files();
  const auto stats = t2o::export_model(kFixture.string(), (dir / "mapped.onnx").string(), options, packs());
  const uint64_t copied = lazy::bytes_copied_from_files() - before;
  EXPECT_GE(copied, 6u * 4096) << "the fixture's unchanged weights did not go file-to-file";
  EXPECT_LE(copied, stats.initializer_bytes);

  const std::string eager_out = (dir / "eager.onnx").string();
  std::vector<std::string> env_text = {"T2O_EAGER_WEIGHTS=1", "T2O_PT2_WEIGHTS_CHILD_OUT=" + eager_out};
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("T2O_EAGER_WEIGHTS=", 0) != 0 && std::string(*e).rfind("GTEST_", 0) != 0)
      env_text.push_back(*e);
  std::vector<char*> env;
  for (auto& s : env_text) env.push_back(s.data());
  env.push_back(nullptr);
  std::string self = fs::read_symlink("/proc/self/exe").string();
  std::string filter = "--gtest_filter=Pt2Weights.ExportWritesTheSameBytesAsEagerWeights";
  char* argv[] = {self.data(), filter.data(), nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, env.data()), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the eager export failed (status " << status << ")";
  const std::string mapped = file_bytes(dir / "mapped.onnx");
  EXPECT_GT(mapped.size(), 6u * 4096);
  EXPECT_TRUE(mapped == file_bytes(eager_out)) << "the export differs from T2O_EAGER_WEIGHTS=1's";
}

}  // namespace
