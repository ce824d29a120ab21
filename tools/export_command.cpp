#include "commands.hpp"
#include "export_options.hpp"

#include <torch2onnx/core/exporter.hpp>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
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
    std::string text = "torch2onnx: " + phase;
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

// --timings: wall time per phase (start-up before main, plugin loading, then the exporter's phases),
// one line on stderr; for finding where an export's time goes without a profiler.
class PhaseTimes {
 public:
  PhaseTimes() { add("start-up", seconds_since_process_start()); }
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
  std::string line() const {
    std::ostringstream os;
    os << "torch2onnx: timings:";
    double total = 0;
    for (const auto& [name, s] : phases_) {
      os << " " << name << " " << std::fixed << std::setprecision(3) << s << " s,";
      total += s;
    }
    os << " total " << std::fixed << std::setprecision(3) << total << " s";
    return os.str();
  }

 private:
  void add(const std::string& name, double s) { phases_.emplace_back(name, s); }
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

std::string export_help() {
  return "usage: torch2onnx export MODEL.pt -o OUT.onnx [options]\n"
         "\n"
         "Converts a TorchScript model (torch.jit.script/trace, then .save()) to ONNX.\n"
         "\n"
         "options (check and verify take the same ones):\n" +
         conversion_options_help();
}

}  // namespace

int run_export(Args& args) {
  ConversionArgs conv;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << export_help();
      return 0;
    } else if (!parse_conversion_option(args, conv)) {
      take_model(args, conv);
    }
  }
  if (conv.model.empty()) throw UsageError("no model given (torch2onnx export MODEL.pt -o OUT.onnx)");
  if (conv.output.empty()) throw UsageError("no output given (-o OUT.onnx)");
  auto& options = conv.options;
  const bool quiet = conv.quiet, timings = conv.timings;
  const std::string& out = conv.output;

  PhaseTimes times;
  times.enter("plugins");
  t2o::registry::Registry registry;
  load_conversion_plugins(registry, conv);
  if (!quiet) warn_refused(registry);
  ProgressLine progress;
  if (!quiet) {
    options.warn = [&progress](const std::string& m) {
      progress.clear();
      print_warning(m);
    };
  }
  const bool show_progress = !quiet && isatty(2);
  if (show_progress || timings)
    options.progress = [&, show_progress](const std::string& phase, uint64_t done, uint64_t total) {
      if (timings) times.enter(phase);
      if (show_progress) progress.update(phase, done, total);
    };
  auto stats = t2o::core::export_model(conv.model, out, options, registry);
  progress.clear();
  times.close();
  if (timings) std::cerr << times.line() << std::endl;
  if (!quiet && stats.external_data)
    std::cerr << "torch2onnx: weights written to " << stats.data_path << " (ONNX external data)" << std::endl;
  if (!quiet)
    std::cerr << "torch2onnx: wrote " << out << " (opset " << options.opset << ", " << stats.onnx_nodes
              << " nodes from " << stats.torch_nodes << " TorchScript nodes, " << stats.initializers
              << " initializers, " << stats.initializer_bytes / 1024 << " KiB of weights)" << std::endl;
  return 0;
}

}  // namespace t2o::cli
