// The example runs beyond the first two (example_run.cpp): one at other proportions of the dynamic
// axes, which finds sizes that came out equal at both sizes by coincidence, and one with other integer
// values, which finds sizes that follow the values of integer inputs. Both are best effort: a model
// that fails there keeps what the first runs found.
#include "run/example_run.hpp"

#include "prepare/passes.hpp"
#include "torch2onnx/core/error_reason.hpp"

#include <cstdlib>
#include <functional>
#include <iostream>

namespace t2o::core {

// Two runs cannot tell a fixed size from one that happened to come out equal at both sizes: a
// transposed second size (--dynamic-input float32[3,320,240] for 240x320) leaves every product of H
// and W as it was (a detector's anchor count, a flattened feature map), and an internal resize or a
// pad to a multiple can hide a one-pixel change. So a third run changes every dynamic axis in another
// proportion: twice its example size for the first dynamic axis position, three times for the others
// (multiples keep what the example size divides; the same factor at the same axis position in every
// input, so inputs that share a size usually still agree). Its dims that differ from the example's
// are dynamic too. A model that fails there keeps what the two runs found.
std::optional<TypeTable> ExampleRun::run_third(const std::vector<std::vector<int64_t>>& shapes,
                                               const std::vector<std::vector<int64_t>>& varied) {
  size_t first_axis = SIZE_MAX;
  for (size_t i = 0; i < shapes.size(); ++i)
    for (size_t d = 0; d < shapes[i].size() && d < first_axis; ++d)
      if (varied[i][d] != shapes[i][d]) first_axis = d;
  auto sizes = shapes;
  bool changed = false;
  for (size_t i = 0; i < shapes.size(); ++i)
    for (size_t d = 0; d < shapes[i].size(); ++d)
      if (varied[i][d] != shapes[i][d] && shapes[i][d] > 0) {
        sizes[i][d] = (d == first_axis ? 2 : 3) * shapes[i][d];
        changed = true;
      }
  if (!changed || sizes == varied) return std::nullopt;
  try {
    return run_once(sizes);
  } catch (const std::exception& e) {
    if (std::getenv("T2O_DEBUG")) std::cerr << "third example run failed: " << error_reason(e.what()) << std::endl;
    return std::nullopt;
  }
}

// Sizes that follow the values of integer inputs (pad_packed_sequence: as many steps as the longest
// length) are found like dynamic axes: one more run with the integer inputs at 2 instead of 1, and
// the dims that change are dynamic. Only for graphs holding such ops; if that run fails (e.g. a
// length of 2 is longer than the input), mark_data_dependent_sizes marks them more coarsely.
// Returns whether the dims of such ops are known (no such op, or the run succeeded: observed_.value_run).
bool ExampleRun::run_value(const std::vector<std::vector<int64_t>>& shapes) {
  bool needed = false;
  std::function<void(torch::jit::Block*)> scan = [&](torch::jit::Block* b) {
    for (auto* n : b->nodes()) {
      needed |= has_data_dependent_size(n);
      for (auto* inner : n->blocks()) scan(inner);
    }
  };
  scan(model_.graph->block());
  if (!needed) return true;
  // Given example values or an --input-range decide the integers, so another fill would change
  // nothing: mark_data_dependent_sizes marks such sizes coarsely instead.
  if (!model_.example_values.empty() || options_.input_range) return false;
  integer_fill_ = 2;
  try {
    observed_.value_run = run_once(shapes);
  } catch (const std::exception&) {
    integer_fill_ = base_integer_fill_;
    return false;
  }
  integer_fill_ = base_integer_fill_;
  return true;
}

}  // namespace t2o::core
