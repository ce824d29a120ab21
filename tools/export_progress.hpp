// What the command line shows while an export runs: the progress line on a terminal and --timings'
// wall time per phase (export and export --batch alike).
#pragma once

#include "commands.hpp"

#include <chrono>
#include <cstdint>
#include <ctime>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace t2o::cli {

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

}  // namespace t2o::cli
