// The main() of every googletest binary: gtest's own, plus a record of the CPU time the test used.
// ctest runs one test per process (gtest_discover_tests), so this process's user+system time and its
// waited-for children's (python, node, torch2onnx) are that test's. With T2O_TEST_CPU_DIR set
// (scripts/test.sh sets it), it writes "<user> <system>" seconds to <dir>/<Suite.Test>.cpu at exit,
// for scripts/test_times.py's table of where a run's time went.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

class CpuTimeRecorder : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo& info) override {
    last_ = std::string(info.test_suite_name()) + "." + info.name();
    ++count_;
  }
  void OnTestProgramEnd(const ::testing::UnitTest&) override {
    const char* dir = std::getenv("T2O_TEST_CPU_DIR");
    // The ctest name when ctest gives it (a test running a filtered slice of a suite: quick.*); else
    // the one googletest test this process ran (gtest_discover_tests' way).
    const char* ctest_name = std::getenv("T2O_TEST_NAME");
    if (!dir || !*dir || (!(ctest_name && *ctest_name) && count_ != 1)) return;
    std::string file = ctest_name && *ctest_name ? ctest_name : last_;
    for (char& c : file)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
    struct rusage self {}, children {};
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    auto secs = [](const timeval& a, const timeval& b) {
      return double(a.tv_sec + b.tv_sec) + double(a.tv_usec + b.tv_usec) * 1e-6;
    };
    if (FILE* f = std::fopen((std::string(dir) + "/" + file + ".cpu").c_str(), "w")) {
      std::fprintf(f, "%.3f %.3f\n", secs(self.ru_utime, children.ru_utime), secs(self.ru_stime, children.ru_stime));
      std::fclose(f);
    }
  }

 private:
  std::string last_;
  int count_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new CpuTimeRecorder);
  return RUN_ALL_TESTS();
}
