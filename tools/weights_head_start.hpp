// A head start on a large export's weights, taken by the launcher before libtorch starts.
//
// The program spends 0.5-0.9 s loading the command library (libtorch's start-up) before anything can
// look at a model. For a model whose weights go to OUT.data (over 2 GB, or --external-data), copying
// them is most of the rest (2.5 GB: about 1.1 s). So the launcher starts the core's copy ahead
// (core/src/assemble/weights_copy_ahead.hpp, which needs no libtorch) before libtorch loads, and hands
// the command library a view of it (launch.h): the writer keeps what matches and writes the rest.
//
// Taken only for `export MODEL -o OUT` without --batch or --no-weights (a batch's jobs take their own
// in the library). T2O_NO_HEAD_START=1 or T2O_EAGER_WEIGHTS=1 turns it off.
#ifndef TORCH2ONNX_TOOLS_WEIGHTS_HEAD_START_HPP
#define TORCH2ONNX_TOOLS_WEIGHTS_HEAD_START_HPP

#include "launch.h"

#include "assemble/weights_copy_ahead.hpp"

#include <memory>
#include <string>
#include <vector>

namespace t2o::cli {

class WeightsHeadStart {
 public:
  // For the words after the program's name (--verbose taken out): a copy under way, or nullptr.
  static std::unique_ptr<WeightsHeadStart> start(const std::vector<std::string>& words);

  const t2o_weights_head_start* view() const { return &view_; }

 private:
  WeightsHeadStart() = default;
  static unsigned long long wait(const t2o_weights_head_start* self);
  static void stop(const t2o_weights_head_start* self);

  std::unique_ptr<core::WeightsCopyAhead> copy_;  // stops, joins and cleans up when this goes
  t2o_weights_head_start view_{};
};

}  // namespace t2o::cli

#endif
