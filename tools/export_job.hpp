// One export as the command line runs it: export and each line of export --batch.
#pragma once

#include "export_options.hpp"
#include "export_progress.hpp"

#include <torch2onnx/core/exporter.hpp>
#include <torch2onnx/core/verify.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace t2o::cli {

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

// export --batch FILE [--batch-report REPORT]: every line of FILE through one registry (export_batch.cpp).
int run_batch(const ConversionArgs& shared, bool print, const std::string& batch_path, const std::string& report_path);

}  // namespace t2o::cli
