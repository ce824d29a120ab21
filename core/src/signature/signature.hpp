// forward()'s signature: the --input specs bound to its arguments, and the signature a .pt made by
// the Python helper torch2onnx.save() carries inside (a TorchScript extra file).
#ifndef TORCH2ONNX_CORE_SIGNATURE_HPP
#define TORCH2ONNX_CORE_SIGNATURE_HPP

#include "load/model_loader.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <optional>
#include <string>
#include <vector>

namespace t2o::core {

// Binds the --input specs to forward()'s arguments in `graph` (self still its input 0), as
// torch.onnx does: tensors stay graph inputs; tuples, lists and dicts become prim::TupleConstruct /
// ListConstruct / DictConstruct of new graph inputs, one per tensor leaf, in order; `none` and
// int=/float=/bool= become constants; a 0-d tensor for an int/float/bool argument is a graph input
// read through aten::Int/Float/Bool; trailing arguments without a spec take their defaults. Reads of
// a bound dict by a constant key become its values. Fills model.argument_names/types (one per graph
// input: dotted names for the leaves of nested arguments, hx.0, x.key) and model.input_specs.
// Nothing is bound when `given` is empty. Throws SignatureError naming the argument, its
// TorchScript type and what was given.
struct BoundDict {
  torch::jit::Value* dict = nullptr;  // the prim::DictConstruct's output
  std::vector<std::string> keys;
  std::vector<torch::jit::Value*> values;
  std::string where;  // "forward() argument 'x' of type Dict[str, Tensor]" (element path included)
};
std::vector<BoundDict> bind_signature(PreparedModel& model, torch::jit::Graph& graph,
                                      const std::vector<InputSpec>& given);

// Reads of the dicts bind_signature made: d[key], d.get(key), key in d, len(d), d.keys() and
// d.values() become what the spec gives. After constant propagation (which removes the branches
// `key in d` decides), a d[key] left for a key the spec lacks is a SignatureError.
void fold_dict_arguments(const std::vector<BoundDict>& dicts, torch::jit::Graph& graph, bool after_propagation);

// The name of the extra file torch2onnx.save() stores the signature in (JSON, see python/torch2onnx).
constexpr const char* kSignatureExtraFile = "torch2onnx_signature.json";

// A .pt's saved signature: the example run's specs, names and dynamic axes, and example tensors.
struct SavedSignature {
  std::vector<InputSpec> inputs;
  std::vector<std::string> input_names, output_names;
  std::vector<DynamicAxes> dynamic_axes;
  std::vector<std::string> example_files;  // names of the extra files holding .npy example tensors
  // Per example file: a quantized example's (scale, zero point); its file holds the integer values.
  std::vector<std::optional<std::pair<double, int64_t>>> example_grids;
  std::optional<bool> dequantized_io;  // save(dequantized_io=...), if recorded
  std::string default_dtype;  // torch.get_default_dtype() when saved: "float32", "float64" ("" if not recorded)
  std::optional<TrainingMode> training;     // save(training=...), if recorded
  std::optional<bool> do_constant_folding;  // save(do_constant_folding=...), if recorded
  // save(..., export_modules_as_functions=True or a set of module classes): as ExportOptions'.
  bool modules_as_functions = false;
  std::vector<std::string> function_module_types;
};
// The signature stored in the archive at `path`, if any. Throws ExportError for a malformed one.
std::optional<SavedSignature> read_saved_signature(const std::string& path);
// The bytes of extra file `name` of the archive at `path`.
std::string read_extra_file(const std::string& path, const std::string& name);

// `options` with what it leaves unset taken from `saved` (explicit options win). The default
// dtype, the training mode and do_constant_folding are the model's, whatever --input says: they are
// taken even when the specs are given.
ExportOptions with_saved_signature(const ExportOptions& options, const SavedSignature& saved);

}  // namespace t2o::core

#endif
