// export --batch (issue 26): a job's files are written while the next job converts. What a user sees
// must not show it: each job's lines and report entry in order, a failed write failing its own job
// only and leaving nothing behind, and every file as a process of its own writes it.
#include "e2e_util.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace {

using namespace t2o_e2e;

const std::string kInput = "float32[1,3,32,32]";

std::string model() { return (source_dir() / "examples" / "tiny_cnn" / "tiny_cnn.pt").string(); }

// The position of the first line of `text` that contains `part`, or npos.
size_t line_with(const std::string& text, const std::string& part) {
  const auto ls = lines(text);
  for (size_t i = 0; i < ls.size(); ++i)
    if (ls[i].find(part) != std::string::npos) return i;
  return std::string::npos;
}

std::vector<nlohmann::json> report_entries(const fs::path& p) {
  std::vector<nlohmann::json> out;
  for (const auto& l : lines(file_bytes(p))) out.push_back(nlohmann::json::parse(l));
  return out;
}

// Jobs that succeed, fail while converting, and fail while writing (in the background), in one batch:
// each reported in order, the failed ones with their own reason and no file, the others written byte
// for byte as single exports write them.
TEST(Batch, EachJobReportedInOrderAndWrittenAsAloneWhateverFailsAroundIt) {
  const fs::path out = fresh_out_dir();
  const fs::path batch = out / "jobs.txt", report = out / "report.jsonl";
  // c.onnx's weights cannot be put in place: c.onnx.data is a directory with a file in it. The
  // conversion succeeds; the write fails, after the next job has started.
  fs::create_directories(out / "c.onnx.data");
  std::ofstream(out / "c.onnx.data" / "keep") << "x";
  {
    std::ofstream f(batch);
    f << model() << " -o " << (out / "a.onnx").string() << " --input " << kInput << " --external-data\n";
    f << (out / "missing.pt").string() << " -o " << (out / "b.onnx").string() << " --input " << kInput << "\n";
    f << model() << " -o " << (out / "c.onnx").string() << " --input " << kInput << " --external-data\n";
    f << model() << " -o " << (out / "d.onnx").string() << " --input " << kInput << "\n";
  }
  const RunResult r = run({cli().string(), "export", "--batch", batch.string(), "--batch-report", report.string()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_FALSE(r.crashed()) << r.describe();

  // The terminal: each job's lines before the next job's.
  const size_t a_wrote = line_with(r.err, "[1/4] wrote "), a_ok = line_with(r.err, "[1/4] " + model());
  const size_t b_error = line_with(r.err, "error: [2/4] "), c_error = line_with(r.err, "error: [3/4] ");
  const size_t d_wrote = line_with(r.err, "[4/4] wrote "), d_ok = line_with(r.err, "[4/4] " + model());
  for (size_t at : {a_wrote, a_ok, b_error, c_error, d_wrote, d_ok}) ASSERT_NE(at, std::string::npos) << r.describe();
  EXPECT_LT(a_wrote, a_ok) << r.describe();
  EXPECT_LT(a_ok, b_error) << r.describe();
  EXPECT_LT(b_error, c_error) << r.describe();
  EXPECT_LT(c_error, d_wrote) << r.describe();
  EXPECT_LT(d_wrote, d_ok) << r.describe();
  EXPECT_NE(lines(r.err)[c_error].find("c.onnx.data"), std::string::npos) << r.describe();
  EXPECT_NE(lines(r.err).back().find("batch: 2 of 4 exported, 2 failed"), std::string::npos) << r.describe();

  // The report: one entry per job, in order.
  const auto entries = report_entries(report);
  ASSERT_EQ(entries.size(), 4u) << file_bytes(report);
  const std::vector<std::string> status = {"ok", "failed", "failed", "ok"};
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(entries[k].at("line"), int(k + 1)) << entries[k];
    EXPECT_EQ(entries[k].at("status"), status[k]) << entries[k];
  }
  EXPECT_NE(entries[1].at("error").get<std::string>().find("missing.pt"), std::string::npos) << entries[1];
  EXPECT_NE(entries[2].at("error").get<std::string>().find("c.onnx.data"), std::string::npos) << entries[2];
  EXPECT_GT(entries[3].at("nodes").get<int>(), 0) << entries[3];

  // The files: those of the jobs that succeeded, no other (no temporary file, nothing of the failed
  // write but the directory that made it fail).
  EXPECT_EQ(list_dir(out), (std::vector<std::string>{"a.onnx", "a.onnx.data", "c.onnx.data", "d.onnx", "jobs.txt",
                                                      "report.jsonl"}));
  EXPECT_EQ(list_dir(out / "c.onnx.data"), std::vector<std::string>{"keep"});

  // Each written file is what an export of its own writes.
  const fs::path alone = out / "alone";
  fs::create_directories(alone);
  for (const char* name : {"a", "d"}) {
    std::vector<std::string> argv = {cli().string(), "export", model(), "-o", (alone / (std::string(name) + ".onnx")).string(),
                                     "--input", kInput, "-q"};
    if (std::string(name) == "a") argv.push_back("--external-data");
    const RunResult single = run(argv);
    ASSERT_EQ(single.exit_code, 0) << single.describe();
  }
  EXPECT_EQ(file_bytes(out / "a.onnx"), file_bytes(alone / "a.onnx"));
  EXPECT_EQ(file_bytes(out / "a.onnx.data"), file_bytes(alone / "a.onnx.data"));
  EXPECT_FALSE(file_bytes(out / "a.onnx.data").empty());
  EXPECT_EQ(file_bytes(out / "d.onnx"), file_bytes(alone / "d.onnx"));
}

}  // namespace
