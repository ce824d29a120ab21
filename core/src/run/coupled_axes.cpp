// Dynamic axes the model cannot vary all at once (ExampleRun::run_partial, example_run.hpp). Inputs
// whose sizes must agree in a way no single rule keeps (a view to another input's shape: x[2,3,4] as
// shape[6,4]; repeat_interleave's repeats, whose length must be 1 or the repeated axis's; an LSTM whose
// feature size is fixed but declared dynamic) fail the second run at every size it tries. Instead of
// refusing, as torch.onnx does not, runs that vary some axes only find which sizes follow those: the
// same axis position in every input (x.0 and shape.0 doubled keep the products equal), one input's
// axes, one axis. Axes that no run can vary stay symbolic in the model's inputs, and every size
// computed from their inputs is taken as dynamic (mark_data_dependent_sizes' varying_inputs): the
// graph computes them at run time rather than baking the example's. Export says which axes no run
// varied. Only a model with a single input whose dynamic axes none vary is refused: it fixes their
// sizes (a traced view to a constant shape).
#include "run/example_run.hpp"

#include "torch2onnx/core/error_reason.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>

namespace t2o::core {

namespace {

using Axis = std::pair<size_t, size_t>;  // (input, axis)
using Sizes = std::vector<std::vector<int64_t>>;

// The groups of axes to vary together, most coupled first: each axis position across the inputs,
// each input's axes, each axis alone (a group equal to all the axes was tried by run_second).
std::vector<std::vector<Axis>> axis_groups(const std::vector<Axis>& axes) {
  std::vector<std::vector<Axis>> groups;
  auto add = [&](std::vector<Axis> g) {
    if (!g.empty() && g.size() < axes.size() && std::find(groups.begin(), groups.end(), g) == groups.end())
      groups.push_back(std::move(g));
  };
  std::set<size_t> positions, inputs;
  for (const auto& [i, d] : axes) positions.insert(d), inputs.insert(i);
  for (size_t p : positions) {
    std::vector<Axis> g;
    for (const auto& a : axes)
      if (a.second == p) g.push_back(a);
    add(g);
  }
  for (size_t i : inputs) {
    std::vector<Axis> g;
    for (const auto& a : axes)
      if (a.first == i) g.push_back(a);
    add(g);
  }
  for (const auto& a : axes) add({a});
  return groups;
}

}  // namespace

void ExampleRun::run_partial(const Sizes& shapes, Sizes& varied) {
  std::vector<Axis> axes;
  for (size_t i = 0; i < shapes.size(); ++i)
    for (size_t d = 0; d < shapes[i].size(); ++d)
      if (varied[i][d] != shapes[i][d]) axes.emplace_back(i, d);
  const auto names = input_names();
  auto axis_name = [&](const Axis& a) {
    return (a.first < names.size() ? names[a.first] : std::to_string(a.first)) + "." + std::to_string(a.second);
  };

  // Each group twice the size (keeps divisibility), else one larger; a group whose axes an earlier
  // run already varied is skipped. Bounded: each try is a run of the whole model.
  constexpr int kMaxTries = 24;
  int tries = 0;
  std::set<Axis> varied_axes;
  for (const auto& group : axis_groups(axes)) {
    if (std::all_of(group.begin(), group.end(), [&](const Axis& a) { return varied_axes.count(a) > 0; })) continue;
    for (int rule = 0; rule < 2 && tries < kMaxTries; ++rule) {
      Sizes sizes = shapes;
      bool usable = true;
      for (const auto& [i, d] : group) {
        const int64_t s = shapes[i][d];
        sizes[i][d] = rule == 0 ? 2 * s : s + 1;
        usable &= s > 0 && sizes[i][d] != 1;
      }
      if (!usable) continue;
      ++tries;
      try {
        TypeTable table = run_once(sizes);
        observed_.partial.emplace_back(sizes, std::move(table));
        varied_axes.insert(group.begin(), group.end());
        break;
      } catch (const std::exception& e) {
        if (std::getenv("T2O_DEBUG"))
          std::cerr << "partial second run failed: " << error_reason(e.what()) << std::endl;
      }
    }
  }
  for (const auto& a : axes)
    if (!varied_axes.count(a)) observed_.unvaried.push_back(a);

  // A single input, and none of its dynamic axes varies: the model fixes their sizes (with more
  // inputs, an axis may have to agree with another input's fixed one: torch.onnx exports those).
  if (observed_.partial.empty() && shapes.size() <= 1)
    throw ExportError("with the dynamic axes at other sizes the model fails at every size tried (" +
                          second_failure_.tried +
                          "), so it fixes those sizes (e.g. a traced constant shape, or inputs whose sizes must agree: "
                          "declare every axis that shares the size dynamic, or give --dynamic-input): " +
                          second_failure_.error,
                      second_failure_.details);
  if (!observed_.partial.empty()) varied = observed_.partial.front().first;
  if (!observed_.unvaried.empty() && options_.warn) {
    std::string listed;
    for (const auto& a : observed_.unvaried) listed += (listed.empty() ? "" : ", ") + axis_name(a);
    options_.warn("dynamic axes " + listed + ": the model fails at every other size tried for them (" +
                  second_failure_.error +
                  "); they stay symbolic, and every size computed from their inputs is computed at run time, "
                  "untested at another size (check the export at the sizes you need with torch2onnx verify)");
  }
}

}  // namespace t2o::core
