#include "batch_file.hpp"
#include "commands.hpp"
#include "export_options.hpp"

#include <torch2onnx/core/exporter.hpp>
#include <torch2onnx/core/verify.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace t2o::cli {

namespace {

// A progress line on a terminal's stderr, shown only once an export has taken a second: phases, nodes
// converted, megabytes written. Redrawn in place; cleared before any other message. before_draw runs
// before it first draws (export --batch: the previous job's lines come first).
class ProgressLine {
 public:
  explicit ProgressLine(std::function<void()> before_draw = {}) : before_draw_(std::move(before_draw)) {}
  void update(const std::string& phase, uint64_t done, uint64_t total) {
    auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1)) return;
    if (phase == last_phase_ && now - last_ < std::chrono::milliseconds(100)) return;
    if (!width_ && before_draw_) before_draw_();
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
  std::function<void()> before_draw_;
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

  void add(const std::string& name, double s) {
    for (auto& [known, sum] : phases_)
      if (known == name) {
        sum += s;
        return;
      }
    phases_.emplace_back(name, s);
  }
 private:
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

// One export as the command line shows it around t2o::core's two steps (export_model_before_write,
// then the write): warnings, the progress line, --timings, the summary, --print. export --batch runs
// a job's write() on another thread while it converts the next job; before_output then finishes the
// previous job (its lines) before anything of this one is printed.
class ExportJob {
 public:
  ExportJob(ConversionArgs& conv, bool print, PhaseTimes& times, std::string prefix, std::function<void()> before_output = {})
      : conv_(conv), print_(print), times_(times), prefix_(std::move(prefix)), before_output_(std::move(before_output)),
        progress_(before_output_) {}

  // Loads, converts and checks; throws as export_model does.
  void convert(const t2o::registry::Registry& registry) {
    auto& options = conv_.options;
    const bool quiet = conv_.quiet, timings = conv_.timings;
    options.warn = [this, quiet](const std::string& m) {
      warnings.push_back(m);
      if (quiet) return;
      if (before_output_) before_output_();
      progress_.clear();
      print_warning(prefix_ + m);
    };
    const bool show_progress = !quiet && isatty(2);
    if (show_progress || timings)
      options.progress = [this, show_progress, timings](const std::string& phase, uint64_t done, uint64_t total) {
        if (timings) times_.enter(phase);
        if (show_progress) progress_.update(phase, done, total);
      };
    // The callbacks point into this object: unhooked when converting ends.
    struct Unhook {
      t2o::core::ExportOptions& options;
      ~Unhook() {
        options.warn = nullptr;
        options.progress = nullptr;
      }
    } unhook{options};
    try {
      pending_ = t2o::core::export_model_before_write(conv_.model, conv_.output, options, registry);
    } catch (...) {
      progress_.clear();
      throw;
    }
    times_.close();
  }

  // Writes the files. in_background: on another thread, without the progress line (the next job
  // converting owns the terminal).
  void write(bool in_background) {
    const auto start = std::chrono::steady_clock::now();
    const bool show_progress = !in_background && !conv_.quiet && isatty(2);
    try {
      stats = pending_.write([&](uint64_t done, uint64_t total) {
        if (show_progress) progress_.update("write", done, total);
      });
    } catch (...) {
      if (show_progress) progress_.clear();
      throw;
    }
    if (show_progress) progress_.clear();
    written_at = std::chrono::steady_clock::now();
    write_seconds_ = std::chrono::duration<double>(written_at - start).count();
  }

  // Once written: --timings, the summary, --print.
  void report() {
    if (before_output_) before_output_();
    const bool quiet = conv_.quiet;
    const std::string& out = conv_.output;
    if (conv_.timings) {
      times_.add("write", write_seconds_);
      std::cerr << times_.line(prefix_) << std::endl;
    }
    if (!quiet && stats.external_data) {
      std::cerr << "torch2onnx: " << prefix_ << "weights written to " << printable(stats.data_path) << " (ONNX external data";
      if (stats.bytes_written_ahead)
        std::cerr << "; " << (stats.bytes_written_ahead >> 20) << " of " << (stats.bytes_written >> 20)
                  << " MiB copied ahead of the write";
      std::cerr << ")" << std::endl;
    }
    if (!quiet)
      std::cerr << "torch2onnx: " << prefix_ << "wrote " << printable(out) << " (opset " << conv_.options.opset << ", "
                << stats.onnx_nodes << " nodes from " << stats.torch_nodes << " TorchScript nodes, " << stats.initializers
                << " initializers, " << stats.initializer_bytes / 1024 << " KiB of weights)" << std::endl;
    if (print_) std::cout << printable_lines(t2o::core::format_onnx_file(out));
  }

  t2o::core::ExportStats stats;
  std::vector<std::string> warnings;
  std::chrono::steady_clock::time_point written_at;

 private:
  ConversionArgs& conv_;
  const bool print_;
  PhaseTimes& times_;
  const std::string prefix_;
  const std::function<void()> before_output_;
  ProgressLine progress_;
  t2o::core::PendingWrite pending_;
  double write_seconds_ = 0;
};

// The launcher's head start on this export's weights (weights_head_start.hpp), if it took one for this
// model and output.
std::shared_ptr<t2o::core::WeightsHeadStart> head_start_for(const ConversionArgs& conv) {
  const t2o_cli_launch* launch = launch_times();
  const t2o_weights_head_start* h = launch ? launch->head_start : nullptr;
  if (!h || conv.model != h->model_path || conv.output != h->output_path) return nullptr;
  auto out = std::make_shared<t2o::core::WeightsHeadStart>();
  out->data_temp_path = h->data_temp_path;
  out->device = h->device;
  out->inode = h->inode;
  out->size = h->size;
  out->mtime_ns = h->mtime_ns;
  for (unsigned long long k = 0; k < h->record_count; ++k)
    out->records.push_back({h->records[3 * k], h->records[3 * k + 1], h->records[3 * k + 2]});
  out->wait = [h] { return size_t(h->wait(h)); };
  out->stop = [h] { h->stop(h); };
  return out;
}

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
  conv.options.weights_head_start = head_start_for(conv);
  ExportJob job(conv, print, times, "");
  job.convert(registry);
  job.write(/*in_background=*/false);
  job.report();
  return 0;
}

}  // namespace t2o::cli
