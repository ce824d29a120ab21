// torch2onnx export --batch: many models in one process, each written while the next converts.
#include "batch_file.hpp"
#include "commands.hpp"
#include "export_job.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <system_error>

namespace t2o::cli {

namespace {

// Whether two paths name the same file, whether or not it exists yet ("a.onnx" and "./a.onnx").
bool same_path(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code ea, eb;
  const std::filesystem::path ca = std::filesystem::weakly_canonical(a, ea), cb = std::filesystem::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

// The words of a batch line that only the command line may give: the packs are loaded once.
bool process_wide_option(const std::string& word) {
  for (const char* name : {"--plugin-path", "--enable-pack", "--batch", "--batch-report"}) {
    const size_t n = std::strlen(name);
    if (word.compare(0, n, name) == 0 && (word.size() == n || word[n] == '=')) return true;
  }
  return false;
}

// One line of a batch file on its way: converted, then written (in the background while the next
// line converts), then reported.
struct BatchEntry {
  ConversionArgs conv;
  std::string where, prefix;
  PhaseTimes times;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::unique_ptr<ExportJob> job;
  std::future<void> written;  // the background write, if one runs
  nlohmann::json entry;       // its --batch-report line
  Failure failure;
  bool ok = false;
};

}  // namespace

// torch2onnx export --batch: every job of the file through one registry; a failure is reported and
// the next job runs. A job's files are written while the next job loads, converts and checks (the
// write was 40% of the bench's 20-model batch); its lines and report entry still come in order,
// before anything of the next job.
int run_batch(const ConversionArgs& shared, bool print, const std::string& batch_path, const std::string& report_path) {
  const std::vector<BatchJob> jobs = read_batch_file(batch_path);
  std::ofstream report;
  if (!report_path.empty()) {
    report.open(report_path, std::ios::trunc);
    if (!report) throw UsageError("--batch-report " + report_path + ": cannot write it");
  }
  const auto batch_start = std::chrono::steady_clock::now();
  // The first job's --timings show the process's start-up and the packs' loading.
  PhaseTimes first_times;
  t2o::registry::Registry registry;
  load_conversion_plugins(registry, shared, [&](const char* phase) { first_times.enter(phase); });
  if (!shared.quiet) warn_refused(registry);
  size_t failed = 0;

  // Waits for an entry's write and prints its outcome: the summary or the error, the report line.
  auto finish = [&](BatchEntry& e) {
    if (e.ok && e.written.valid()) {
      try {
        e.written.get();
      } catch (...) {
        e.ok = false;
        e.failure = describe_current_exception();
      }
    }
    if (e.ok) {
      try {
        e.job->report();
      } catch (...) {
        e.ok = false;
        e.failure = describe_current_exception();
      }
    }
    const auto end = e.ok ? e.job->written_at : std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(end - e.start).count();
    std::ostringstream secs;
    secs << std::fixed << std::setprecision(2) << seconds << " s";
    const ConversionArgs& conv = e.conv;
    if (e.ok) {
      if (!conv.quiet)
        std::cerr << "torch2onnx: " << e.prefix << printable(conv.model) << " -> " << printable(conv.output) << ": ok ("
                  << secs.str() << ")" << std::endl;
    } else {
      ++failed;
      print_error(e.prefix + (conv.model.empty() ? e.where : conv.model + " (" + e.where + ")") + ": " + e.failure.line);
      print_details(e.failure.line, e.failure.details);
    }
    if (report.is_open()) {
      nlohmann::json& entry = e.entry;
      entry["status"] = e.ok ? "ok" : "failed";
      entry["exit_code"] = e.ok ? 0 : e.failure.exit_code;
      entry["error"] = e.ok ? "" : printable(e.failure.line);  // as the terminal shows it
      entry["details"] = e.ok ? "" : printable_lines(e.failure.details);
      entry["warnings"] = e.job ? e.job->warnings : std::vector<std::string>();
      entry["seconds"] = seconds;
      entry["nodes"] = e.ok ? e.job->stats.onnx_nodes : 0;
      // Invalid UTF-8 from a message becomes U+FFFD rather than an exception.
      report << entry.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
    }
  };
  std::unique_ptr<BatchEntry> in_flight;  // the previous job, written in the background
  auto finish_previous = [&] {
    if (!in_flight) return;
    std::unique_ptr<BatchEntry> e = std::move(in_flight);  // first: finishing it prints, which calls back here
    finish(*e);
  };

  for (size_t k = 0; k < jobs.size(); ++k) {
    const BatchJob& job = jobs[k];
    auto e = std::make_unique<BatchEntry>(BatchEntry{shared, batch_path + ":" + std::to_string(job.line),
                                                     "[" + std::to_string(k + 1) + "/" + std::to_string(jobs.size()) + "] ",
                                                     k == 0 ? std::move(first_times) : PhaseTimes(false)});
    ConversionArgs& conv = e->conv;
    e->entry = {{"line", job.line}, {"model", nullptr}, {"output", nullptr}};
    bool job_print = print;
    try {
      Args args(job.words);
      while (!args.done()) {
        if (process_wide_option(args.peek()))
          throw UsageError(args.peek().substr(0, args.peek().find('=')) +
                           " applies to the whole batch: give it on the command line, not in a line of the file");
        if (args.flag("--print")) {
          job_print = true;
          conv.options.node_doc_strings = true;
        } else if (!parse_conversion_option(args, conv)) {
          take_model(args, conv);
        }
      }
      e->entry["model"] = conv.model;
      if (conv.model.empty()) throw UsageError("no model given (MODEL.pt -o OUT.onnx [options])");
      if (conv.output.empty()) throw UsageError("no output given (-o OUT.onnx)");
      e->entry["output"] = conv.output;
      // A job that reads what the previous one is writing, or writes where it writes, waits for it: its
      // own head start on OUT.data (core/src/assemble/weights_copy_ahead.hpp) would fill the same
      // temporary file while the previous write is still in it.
      if (in_flight && (same_path(conv.model, in_flight->conv.output) ||
                        same_path(conv.model, in_flight->conv.output + ".data") ||
                        same_path(conv.output, in_flight->conv.output)))
        finish_previous();
      e->job = std::make_unique<ExportJob>(conv, job_print, e->times, e->prefix, finish_previous);
      e->job->convert(registry);
      e->ok = true;
    } catch (...) {
      e->failure = describe_current_exception();
    }
    finish_previous();  // one write at a time: the previous job's ends before this one's starts
    if (!e->ok) {
      finish(*e);
      continue;
    }
    ExportJob* converted = e->job.get();
    if (!job_print) {
      try {
        e->written = std::async(std::launch::async, [converted] { converted->write(/*in_background=*/true); });
      } catch (const std::system_error&) {
        // No thread to be had: written here, below.
      }
    }
    if (!e->written.valid()) {
      try {
        converted->write(/*in_background=*/false);
      } catch (...) {
        e->ok = false;
        e->failure = describe_current_exception();
      }
    }
    in_flight = std::move(e);
  }
  finish_previous();
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - batch_start).count();
  if (!shared.quiet || failed)
    std::cerr << "torch2onnx: batch: " << jobs.size() - failed << " of " << jobs.size() << " exported"
              << (failed ? ", " + std::to_string(failed) + " failed" : std::string()) << " in " << std::fixed
              << std::setprecision(1) << total << " s" << std::endl;
  return failed ? 1 : 0;
}

}  // namespace t2o::cli
