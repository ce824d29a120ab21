// Stage 1 of a conversion: the example runs. The prepared graph runs on inputs made from the
// --input specs (on the meta device when every op has a meta kernel, else on the CPU), with an
// observer after every tensor value, top level and inside blocks; with dynamic axes a second run at
// other sizes marks the dims that vary. Folding on what the runs saw can remove control flow, which
// exposes new values: the fold <-> run fixpoint lives here and nowhere else.
#ifndef TORCH2ONNX_CORE_EXAMPLE_RUN_HPP
#define TORCH2ONNX_CORE_EXAMPLE_RUN_HPP

#include "load/model_loader.hpp"
#include "common/type_table.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <map>
#include <string>
#include <optional>
#include <vector>

namespace t2o::core {

// Where the dynamic axes are, as the assembly names them in the model's inputs and outputs.
struct DynamicAxesPlan {
  std::vector<std::map<int64_t, std::string>> input_symbols;   // per input: dynamic axis -> dim name
  std::vector<std::map<int64_t, std::string>> output_symbols;  // per output: axis -> name ("" = automatic)
  std::map<std::pair<int64_t, int64_t>, std::string> symbol_of_sizes;  // (size run 1, run 2) -> dim name
  std::vector<std::vector<int64_t>> second_run_shapes;  // the input shapes the second run used (verify reruns them)
};

class ExampleRun {
 public:
  // specs: the --input of each graph input (prepared.input_specs, flattened).
  ExampleRun(const ExportOptions& options, PreparedModel& model, std::vector<InputSpec> specs);

  // Runs, folds what every run of the exported graph shares, runs again while the fold removed
  // control flow; fills `types` and returns the dynamic axes' plan. Throws ExportError.
  DynamicAxesPlan record(TypeTable& types);

  std::vector<std::string> input_names() const;   // --input-names, else forward()'s argument names
  std::vector<std::string> output_names() const;  // --output-names, else output_0, output_1, ...

 private:
  // `varied`: the second run's shapes; replaced by the first of `other_sizes_` the model runs at when
  // it fails at these.
  // observe() then derive().
  void run_all(TypeTable& types, const std::vector<std::vector<int64_t>>& shapes,
               std::vector<std::vector<int64_t>>& varied, DynamicAxesPlan& plan);
  // Runs the model (at the example shapes, at the second run's, with integers at 2 where sizes follow
  // values) and keeps what each run saw, unmerged, in observed_.
  void observe(const std::vector<std::vector<int64_t>>& shapes, std::vector<std::vector<int64_t>>& varied);
  // `types` from observed_ on the current graph: the runs merged (dims that differ are dynamic),
  // unreached values typed, sizes that depend on data marked. Repeatable after a fold.
  void derive(TypeTable& types, const std::vector<std::vector<int64_t>>& shapes,
              const std::vector<std::vector<int64_t>>& varied, DynamicAxesPlan& plan);
  // The second run: at `varied`, else at the first of other_sizes_ the model runs at (varied becomes
  // it); nullopt when it fails at all of them (second_failure_ says where and why).
  std::optional<TypeTable> run_second(const std::vector<std::vector<int64_t>>& shapes,
                                      std::vector<std::vector<int64_t>>& varied);
  // After run_second failed: runs varying some of the dynamic axes only (coupled_axes.cpp), kept in
  // observed_.partial; the axes no run could vary in observed_.unvaried. Throws ExportError when no
  // axis varies and only one input has dynamic axes (the model fixes their sizes).
  void run_partial(const std::vector<std::vector<int64_t>>& shapes, std::vector<std::vector<int64_t>>& varied);
  void merge_second_run(TypeTable& types, const TypeTable& other, const std::vector<std::vector<int64_t>>& shapes,
                        const std::vector<std::vector<int64_t>>& varied, DynamicAxesPlan& plan);
  std::optional<TypeTable> run_third(const std::vector<std::vector<int64_t>>& shapes,
                                     const std::vector<std::vector<int64_t>>& varied);
  bool run_value(const std::vector<std::vector<int64_t>>& shapes);
  void merge_value_run(TypeTable& types, const TypeTable& other);
  TypeTable run_once(const std::vector<std::vector<int64_t>>& shapes);
  TypeTable run_on(const std::vector<std::vector<int64_t>>& shapes, bool meta, bool probe_grid = false);

  const ExportOptions& options_;
  PreparedModel& model_;
  std::vector<InputSpec> specs_;
  // The value of made-up integer example inputs: ones (valid indices into any non-empty dim, safe
  // divisors), zeros where the model rejects ones (offsets, class ids: observe), run_value's 2.
  int64_t integer_fill_ = 1;
  int64_t base_integer_fill_ = 1;  // what the runs after run_value go back to
  // What the latest runs saw, each run's table as it was recorded.
  struct Observations {
    TypeTable first;                     // at the example shapes
    std::optional<TypeTable> second;     // at the second run's shapes (dynamic axes)
    // With the dynamic axes at 2 and 3 times their example sizes (run_third), when the model runs
    // there: sizes that came out equal in the first two runs (a flattened H*W with H and W swapped, a
    // size hidden by an internal resize) differ here. A model that fails at these sizes is not refused.
    std::optional<TypeTable> third;
    std::optional<TypeTable> value_run;  // integer inputs at 2 (ops sized by values), when it ran
    // When no run varies every dynamic axis at once (inputs whose sizes must agree: a view to another
    // input's shape, repeats and the axis they repeat): runs that vary some of them, with their shapes,
    // and the (input, axis) pairs none could vary, whose inputs' dependents get -1 dims.
    std::vector<std::pair<std::vector<std::vector<int64_t>>, TypeTable>> partial;
    std::vector<std::pair<size_t, size_t>> unvaried;
    // Quantized inputs on another grid (scale, zero point): which quantized values' grids follow the
    // inputs' at run time (see TensorInfo::q_scale_probe). Only with quantized inputs in torch.onnx's form.
    std::optional<TypeTable> grid_probe;
    bool value_dims_known = true;
  };
  Observations observed_;
  // More shapes to try for the second run when the model fails at the first choice (sizes that must
  // stay divisible, sum to something, ...): every dynamic axis x2, +its power-of-two factor, -1, /2.
  std::vector<std::vector<std::vector<int64_t>>> other_sizes_;
  struct Failure {
    std::string tried, error, details;  // the sizes tried (shown), the first error (reason, whole)
  } second_failure_;
};

// Whether a node writes one of its inputs: its schema marks it, or a normalization updates its
// running statistics in training mode (their schemas do not say so).
bool writes_an_input(const torch::jit::Node* n);

// A tensor (or Optional tensor) type, and a list of tensors.
bool is_tensor_type(const c10::TypePtr& type);
bool is_tensor_list(const c10::TypePtr& type);

// Values the runs never reached (a branch not taken, a loop that ran no iteration) get types by
// running each such node alone on meta tensors of its inputs' recorded types.
void propagate_unobserved(torch::jit::Block* block, TypeTable& types);

// Sizes that depend on the data: an if's results whose branches give other sizes, a loop's carried
// values whose sizes change between iterations, and everything computed from them, get -1 dims.
// value_ops: also everything computed from an op whose sizes follow tensor values
// (has_data_dependent_size) when no run told which of its dims vary.
// varying_inputs: graph inputs whose sizes vary in ways no run saw (dynamic axes no run could vary):
// everything computed from them gets -1 dims too.
void mark_data_dependent_sizes(torch::jit::Block* block, TypeTable& types, bool value_ops = false,
                               const std::vector<const torch::jit::Value*>& varying_inputs = {});

}  // namespace t2o::core

#endif
