// A head start on a large export's weights, taken by the launcher before libtorch starts.
//
// The program spends 0.5-0.9 s loading the command library (libtorch's start-up) before anything can
// look at a model. For a model whose weights go to OUT.data (over 2 GB, or --external-data), copying
// them is most of the rest (2.5 GB: about 1.1 s). So the launcher reads the .pt's zip directory (no
// libtorch needed) and, on a thread, copies its weight records into OUT.data's temporary file while
// libtorch starts: in archive order, 64-byte aligned from offset 0, which is the order the writer
// gives weights that lie untouched in the .pt (core/src/assemble/model_writer.cpp). The writer keeps the
// leading records that match its layout and writes the rest, so a wrong guess here costs a copy,
// never a wrong file: it checks the file's identity and each record's offset and length.
//
// Taken only for `export MODEL -o OUT` without --batch or --no-weights, when the .pt's weight records
// of at least 1 MiB (the ones lazy weights leave in the file) add up past the 2 GB inline limit, or
// --external-data is given. T2O_NO_HEAD_START=1 or T2O_EAGER_WEIGHTS=1 turns it off.
#ifndef TORCH2ONNX_TOOLS_WEIGHTS_HEAD_START_HPP
#define TORCH2ONNX_TOOLS_WEIGHTS_HEAD_START_HPP

#include "launch.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace t2o::cli {

class WeightsHeadStart {
 public:
  // For the words after the program's name (--verbose taken out): a copy under way, or nullptr.
  static std::unique_ptr<WeightsHeadStart> start(const std::vector<std::string>& words);
  // Stops the copy and removes the temporary file, unless the writer has renamed it into place.
  ~WeightsHeadStart();
  WeightsHeadStart(const WeightsHeadStart&) = delete;
  WeightsHeadStart& operator=(const WeightsHeadStart&) = delete;

  const t2o_weights_head_start* view() const { return &view_; }

 private:
  WeightsHeadStart() = default;
  void copy();
  static unsigned long long wait(const t2o_weights_head_start* self);
  static void stop(const t2o_weights_head_start* self);

  std::string model_, output_, temp_;
  int in_fd_ = -1, out_fd_ = -1;
  std::vector<unsigned long long> records_;  // triples: offset in the .pt, length, offset in OUT.data
  std::atomic<bool> stop_{false};
  std::atomic<unsigned long long> copied_{0};  // leading records copied whole
  std::thread thread_;
  bool joined_ = false;
  t2o_weights_head_start view_{};
};

}  // namespace t2o::cli

#endif
