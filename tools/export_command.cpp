#include "batch_file.hpp"
#include "commands.hpp"
#include "export_options.hpp"

#include <torch2onnx/core/exporter.hpp>
#include <torch2onnx/core/verify.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

namespace t2o::cli {

namespace {

// A progress line on a terminal's stderr, shown only once an export has taken a second: phases, nodes
// converted, megabytes written. Redrawn in place; cleared before any other message.
class ProgressLine {
 public:
  void update(const std::string& phase, uint64_t done, uint64_t total) {
    auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1)) return;
    if (phase == last_phase_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    last_phase_ = phase;
    std::string text = "torch2onnx: " + printable(phase);
    if (total && phase == "write")
      text += " " + std::to_string(done >> 20) + "/" + std::to_string(total >> 20) + " MB";
    else if (total)
      text += " " + std::to_string(done) + "/" + std::to_string(total) + " nodes";
    std::cerr << "\r" << text << std::string(width_ > text.size() ? width_ - text.size() : 0, ' ') << std::flush;
    width_ = text.size();
  }
  void clear() {
    if (!width_) return;
    std::cerr << "\r" << std::string(width_, ' ') << "\r" << std::flush;
    width_ = 0;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_;
  std::string last_phase_;
  size_t width_ = 0;
};

// --timings: wall time per phase, one line on stderr; for finding where an export's time goes without
// a profiler. A process's first export starts with its start-up: exec (to the launcher's main) and
// libtorch (loading the command library: libtorch's relocations and static registrations); then our
// own start-up (plugin-dirs: listing the pack directories, packs: opening them, signature: the .pt's
// saved signature, kernel-libraries: loading them, custom-ops: the packs' declarations), then the
// exporter's phases. A phase entered again adds to its first entry.
class PhaseTimes {
 public:
  // with_start_up: the first phases are the time from exec to now (the first export of a process).
  explicit PhaseTimes(bool with_start_up = true) {
    if (!with_start_up) return;
    const double since_exec = seconds_since_process_start();
    const t2o_cli_launch* launch = launch_times();
    if (!launch || launch->main_entered <= 0) {
      add("start-up", since_exec);
      return;
    }
    const double now = std::chrono::duration<double>(since_.time_since_epoch()).count();  // CLOCK_MONOTONIC
    add("exec", std::max(0.0, since_exec - (now - launch->main_entered)));
    add("libtorch", std::max(0.0, now - launch->main_entered));
  }
  void enter(const std::string& phase) {
    if (phase == current_) return;
    close();
    current_ = phase;
  }
  void close() {
    auto now = std::chrono::steady_clock::now();
    if (!current_.empty()) add(current_, std::chrono::duration<double>(now - since_).count());
    since_ = now;
    current_.clear();
  }
  std::string line(const std::string& prefix = "") const {
    std::ostringstream os;
    os << "torch2onnx: " << prefix << "timings:";
    double total = 0;
    for (const auto& [name, s] : phases_) {
      os << " " << name << " " << std::fixed << std::setprecision(3) << s << " s,";
      total += s;
    }
    os << " total " << std::fixed << std::setprecision(3) << total << " s";
    return os.str();
  }

 private:
  void add(const std::string& name, double s) {
    for (auto& [known, sum] : phases_)
      if (known == name) {
        sum += s;
        return;
      }
    phases_.emplace_back(name, s);
  }
  // Time from exec to now: libtorch's static initialisers run before main and are a large part of a
  // small model's export.
  static double seconds_since_process_start() {
    std::ifstream stat("/proc/self/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    auto paren = text.rfind(')');
    if (paren == std::string::npos) return 0;
    std::istringstream fields(text.substr(paren + 2));
    std::string field;
    unsigned long long start_ticks = 0;
    for (int i = 3; i <= 22 && fields >> field; ++i)
      if (i == 22) start_ticks = std::stoull(field);
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    double started = double(start_ticks) / double(sysconf(_SC_CLK_TCK));
    double elapsed = double(now.tv_sec) + double(now.tv_nsec) * 1e-9 - started;
    return elapsed > 0 ? elapsed : 0;
  }
  std::vector<std::pair<std::string, double>> phases_;
  std::string current_;
  std::chrono::steady_clock::time_point since_ = std::chrono::steady_clock::now();
};

// What one export prints and returns around t2o::core::export_model: warnings, the progress line,
// --timings, the summary, --print.
struct ExportRun {
  t2o::core::ExportStats stats;
  std::vector<std::string> warnings;
};

ExportRun export_one(ConversionArgs& conv, const t2o::registry::Registry& registry, bool print, PhaseTimes& times,
                     const std::string& prefix) {
  auto& options = conv.options;
  const bool quiet = conv.quiet, timings = conv.timings;
  const std::string& out = conv.output;
  ExportRun run;
  ProgressLine progress;
  options.warn = [&](const std::string& m) {
    run.warnings.push_back(m);
    if (quiet) return;
    progress.clear();
    print_warning(prefix + m);
  };
  const bool show_progress = !quiet && isatty(2);
  if (show_progress || timings)
    options.progress = [&, show_progress](const std::string& phase, uint64_t done, uint64_t total) {
      if (timings) times.enter(phase);
      if (show_progress) progress.update(phase, done, total);
    };
  // The callbacks point into this frame: gone with it.
  struct Unhook {
    t2o::core::ExportOptions& options;
    ~Unhook() {
      options.warn = nullptr;
      options.progress = nullptr;
    }
  } unhook{options};
  try {
    run.stats = t2o::core::export_model(conv.model, out, options, registry);
  } catch (...) {
    progress.clear();
    throw;
  }
  progress.clear();
  times.close();
  if (timings) std::cerr << times.line(prefix) << std::endl;
  const auto& stats = run.stats;
  if (!quiet && stats.external_data)
    std::cerr << "torch2onnx: " << prefix << "weights written to " << printable(stats.data_path) << " (ONNX external data)"
              << std::endl;
  if (!quiet)
    std::cerr << "torch2onnx: " << prefix << "wrote " << printable(out) << " (opset " << options.opset << ", " << stats.onnx_nodes
              << " nodes from " << stats.torch_nodes << " TorchScript nodes, " << stats.initializers
              << " initializers, " << stats.initializer_bytes / 1024 << " KiB of weights)" << std::endl;
  if (print) std::cout << printable_lines(t2o::core::format_onnx_file(out));
  return run;
}

// The words of a batch line that only the command line may give: the packs are loaded once.
bool process_wide_option(const std::string& word) {
  for (const char* name : {"--plugin-path", "--enable-pack", "--batch", "--batch-report"}) {
    const size_t n = std::strlen(name);
    if (word.compare(0, n, name) == 0 && (word.size() == n || word[n] == '=')) return true;
  }
  return false;
}

// torch2onnx export --batch: every job of the file through one registry; a failure is reported and
// the next job runs.
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
  for (size_t k = 0; k < jobs.size(); ++k) {
    const BatchJob& job = jobs[k];
    const std::string where = batch_path + ":" + std::to_string(job.line);
    const std::string prefix = "[" + std::to_string(k + 1) + "/" + std::to_string(jobs.size()) + "] ";
    const auto start = std::chrono::steady_clock::now();
    ConversionArgs conv = shared;
    nlohmann::json entry = {{"line", job.line}, {"model", nullptr}, {"output", nullptr}};
    ExportRun run;
    Failure failure;
    bool ok = false;
    try {
      Args args(job.words);
      bool job_print = print;
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
      entry["model"] = conv.model;
      if (conv.model.empty()) throw UsageError("no model given (MODEL.pt -o OUT.onnx [options])");
      if (conv.output.empty()) throw UsageError("no output given (-o OUT.onnx)");
      entry["output"] = conv.output;
      PhaseTimes later_times(false);
      run = export_one(conv, registry, job_print, k == 0 ? first_times : later_times, prefix);
      ok = true;
    } catch (...) {
      failure = describe_current_exception();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::ostringstream secs;
    secs << std::fixed << std::setprecision(2) << seconds << " s";
    if (ok) {
      if (!conv.quiet)
        std::cerr << "torch2onnx: " << prefix << printable(conv.model) << " -> " << printable(conv.output) << ": ok (" << secs.str() << ")"
                  << std::endl;
    } else {
      ++failed;
      print_error(prefix + (conv.model.empty() ? where : conv.model + " (" + where + ")") + ": " + failure.line);
      print_details(failure.line, failure.details);
    }
    if (report.is_open()) {
      entry["status"] = ok ? "ok" : "failed";
      entry["exit_code"] = ok ? 0 : failure.exit_code;
      entry["error"] = ok ? "" : printable(failure.line);  // as the terminal shows it
      entry["details"] = ok ? "" : printable_lines(failure.details);
      entry["warnings"] = run.warnings;
      entry["seconds"] = seconds;
      entry["nodes"] = run.stats.onnx_nodes;
      // Invalid UTF-8 from a message becomes U+FFFD rather than an exception.
      report << entry.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
    }
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - batch_start).count();
  if (!shared.quiet || failed)
    std::cerr << "torch2onnx: batch: " << jobs.size() - failed << " of " << jobs.size() << " exported"
              << (failed ? ", " + std::to_string(failed) + " failed" : std::string()) << " in " << std::fixed
              << std::setprecision(1) << total << " s" << std::endl;
  return failed ? 1 : 0;
}

}  // namespace

int run_export(Args& args) {
  ConversionArgs conv;
  bool print = false;
  std::string batch, batch_report;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << export_help();
      return 0;
    } else if (args.flag("--print")) {
      print = true;
      conv.options.node_doc_strings = true;
    } else if (args.option("--batch", batch)) {
    } else if (args.option("--batch-report", batch_report)) {
    } else if (!parse_conversion_option(args, conv)) {
      take_model(args, conv);
    }
  }
  if (!batch.empty()) {
    if (!conv.model.empty() || !conv.output.empty())
      throw UsageError("--batch takes the models and outputs from its file, not from the command line ('" +
                       (conv.model.empty() ? conv.output : conv.model) + "')");
    return run_batch(conv, print, batch, batch_report);
  }
  if (!batch_report.empty()) throw UsageError("--batch-report goes with --batch FILE");
  if (conv.model.empty()) throw UsageError("no model given (torch2onnx export MODEL.pt -o OUT.onnx)");
  if (conv.output.empty()) throw UsageError("no output given (-o OUT.onnx)");
  PhaseTimes times;
  t2o::registry::Registry registry;
  load_conversion_plugins(registry, conv, [&](const char* phase) { times.enter(phase); });
  if (!conv.quiet) warn_refused(registry);
  export_one(conv, registry, print, times, "");
  return 0;
}

}  // namespace t2o::cli
