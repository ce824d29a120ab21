// `torch2onnx verify` in the core. verify_model() is the whole command: export (or --onnx), ONNX
// Runtime and libtorch on the same inputs, every output compared, --find-mismatch and --repro; it
// returns a VerifyReport, which verify_report_text() and verify_report_json() print. Below it, the
// pieces it is made of: a conversion kept in memory with, for every TorchScript node of the
// converted graph, the ONNX values holding its inputs and outputs (so they can be exposed as extra
// graph outputs) and where it came from; libtorch's values of the same TorchScript values on given
// inputs; tensors read from and written to ONNX TensorProto (.pb) and NumPy (.npy) files; the
// inputs, outputs and text of an ONNX file. Failures are ExportError with one line.
#ifndef TORCH2ONNX_CORE_VERIFY_HPP
#define TORCH2ONNX_CORE_VERIFY_HPP

#include "torch2onnx/core/exporter.hpp"

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace t2o::core {

// ---- verify_model: the whole of `torch2onnx verify` ----

// A request verify_model cannot carry out as given: input files that are missing or do not fit the
// --input specs, --input kinds verify does not take, an --onnx file that cannot be read or has
// another number of inputs, no node or onnxruntime-node, a --repro directory that cannot be made.
// The CLI exits 2 on it, as on other usage mistakes; any other ExportError is a failed export or run
// (exit 1).
class VerifyRequestError : public ExportError {
 public:
  using ExportError::ExportError;
};

using ValueRange = std::pair<double, double>;  // random values uniform in [first, second)

struct VerifyRequest {
  std::string model;      // the TorchScript file, run in libtorch (and exported unless `onnx` is given)
  ExportOptions options;  // the conversion's options, as export takes them. `inputs` may be left empty
                          // with `inputs_dir` (the files' dtypes and shapes then give the specs);
                          // verify takes tensor and none arguments only
  std::string output;     // also write the exported model here ("": no)
  std::string onnx;       // compare this ONNX file instead of exporting ("": export)
  std::string inputs_dir;  // inputs from DIR/input_K.pb or .npy (K = 0, 1, ...) instead of random ones
  std::string repro_dir;   // write DIR/model.onnx and DIR/test_data_set_0/ (see VerifyRepro)
  std::string ort_dir;     // node_modules holding onnxruntime-node; "": TORCH2ONNX_ORT_DIR, else the
                           // source tree's tests/ort/node_modules
  double rtol = 1e-3, atol = 1e-7;  // |onnx - torch| <= atol + rtol * |torch|; integers and bools exactly
  int64_t runs = 1;  // random input sets, seeded seed, seed + 1, ...
  int64_t seed = 0;
  std::optional<ValueRange> input_range;          // of every input; default: integers in [0, 2), floats
                                                  // from a standard normal
  std::map<std::string, ValueRange> input_range_of;  // of one input, by its ONNX name
  bool find_mismatch = false;  // on a mismatch, find the first TorchScript node whose ONNX result differs
  // One line per step taken ("exporting MODEL (opset 17)"); unset: none.
  std::function<void(const std::string&)> progress;
  // Fills the empty registry the conversion uses, called once the request is checked (after the
  // input files are read, before any conversion). Unset: the bundled packs and TORCH2ONNX_PLUGIN_PATH.
  std::function<void(t2o::registry::Registry&)> load_packs;
};

// One tensor of ONNX Runtime compared with libtorch's.
struct TensorDiff {
  bool match = true;
  std::string problem;  // "shape [2,3], libtorch [2,4]" or "dtype ..., libtorch ..." (values not
                        // compared); "" when the values were compared
  double max_abs_error = 0, max_rel_error = 0;  // over the finite elements
  int64_t mismatched_elements = 0, elements = 0;
  std::vector<int64_t> where;  // the index of the first element beyond tolerance, else of the largest error
  double onnx_value = 0, torch_value = 0;  // the two values there
};

// One output of one run.
struct VerifyOutput {
  std::string name;  // the ONNX output's name
  std::string dtype;  // libtorch's value: "float32"
  std::vector<int64_t> shape;
  TensorDiff diff;
};

// One set of inputs run in both.
struct VerifyRun {
  std::string inputs;   // "seed 0: x float32[1,3,16,16]", or "inputs from DIR"
  std::string problem;  // "the ONNX model has 2 output(s), the TorchScript model 3" (outputs then empty)
  std::vector<VerifyOutput> outputs;
};

// An input or output value of the first mismatching node.
struct MismatchValue {
  enum class State {
    NotTensor,    // not a tensor when libtorch ran it
    NoOnnxValue,  // no ONNX value holds it (`folded` says why, "" when nothing is known)
    Compared,     // `dtype`, `shape` and `diff` hold the comparison
  };
  std::string value;  // the TorchScript value, "%x.3"
  std::string onnx;   // the ONNX value holding it, "" when none
  State state = State::NotTensor;
  std::string folded;
  std::string dtype;
  std::vector<int64_t> shape;
  TensorDiff diff;  // compared with atol raised to the scale of libtorch's whole value (rtol/20 x its
                    // mean magnitude): rounding near zero follows the tensor's scale
};

// --find-mismatch: the first TorchScript node, in topological order, whose ONNX result differs.
struct FirstMismatch {
  bool found = false;
  std::string message;  // !found: why no single node was found
  std::string op, location, pack, symbolic;  // as ProbeNode
  std::vector<std::string> onnx_nodes;
  std::vector<MismatchValue> inputs, outputs;
};

// --repro: DIR/model.onnx, the first mismatching node alone when it can be cut out (else the whole
// model), and DIR/test_data_set_0/input_K.pb, output_K.pb (libtorch's values).
struct VerifyRepro {
  std::string dir;
  std::string model;  // DIR/model.onnx
  bool subgraph = false;  // the node alone
  size_t inputs = 0, outputs = 0;
};

struct VerifySeconds {
  double export_model = 0, onnxruntime = 0, libtorch = 0, find_mismatch = 0, total = 0;
};

struct VerifyReport {
  std::string model;
  std::string onnx;  // the request's --onnx file; "" when the model was exported
  int64_t opset = 0;
  double rtol = 0, atol = 0;
  std::vector<VerifyRun> runs;
  bool match = true;  // every output of every run matches
  std::optional<FirstMismatch> first_mismatch;  // with find_mismatch, when an output differs
  std::optional<VerifyRepro> repro;              // with repro_dir
  VerifySeconds seconds;
};

// Runs a verify request. ONNX Runtime runs in node (npm's onnxruntime-node) through ort_runner.js,
// installed beside the program in ../share/torch2onnx/, with tensors passed as TensorProto files in a
// temporary directory; libtorch runs in this process. With dynamic axes (and no inputs_dir) each set
// of inputs runs again at other sizes: the ones export's second example run used, or with `onnx` the
// --dynamic-input shapes, else each dynamic axis one larger. A mismatch is a report, not an error;
// throws VerifyRequestError for a request it cannot carry out, ExportError when the export, ONNX
// Runtime or libtorch fails.
VerifyReport verify_model(const VerifyRequest& request);

// The report as `torch2onnx verify` prints it: text lines (each ending in a newline), or JSON
// (schema_version kVerifySchemaVersion, indented by two, no final newline).
constexpr int kVerifySchemaVersion = 1;
std::string verify_report_text(const VerifyReport& report);
std::string verify_report_json(const VerifyReport& report);

// ---- the pieces verify_model is made of ----

// One tensor value of the converted TorchScript graph that the localisation can compare.
struct ProbeValue {
  size_t id = 0;       // the TorchScript value (Value::unique())
  std::string name;    // its TorchScript debug name, "%x.3"
  std::string onnx;    // the ONNX value holding it in the main graph; "" when it has none (folded
                       // into a constant, or not a tensor in ONNX)
  std::string folded;  // why there is no ONNX value ("folded into a constant", ...)
};

// One top-level TorchScript node of the converted graph, in topological order.
struct ProbeNode {
  std::string op;        // "aten::gelu"
  std::string location;  // "encoder.layers.1.linear1 (Linear), code/__torch__.py:12"
  std::string pack;      // the pack whose symbolic converted it
  std::string symbolic;  // "aten::gelu since opset 9 (FILE)"
  std::vector<size_t> inputs, outputs;  // indices into Conversion::values (tensor values only)
  std::vector<std::string> onnx_nodes;  // the ONNX nodes it made (main graph)
};

// A model converted in memory, with the graph that was converted kept runnable.
class Conversion {
 public:
  ~Conversion();
  // Converts as export_model does (checked and shape-inferred), without writing.
  static std::unique_ptr<Conversion> convert(const std::string& model_path, const ExportOptions& options,
                                             const t2o::registry::Registry& registry);

  // Writes the model (weights inline unless above 2 GB); `extra_outputs` are ONNX value names
  // added as graph outputs (the probes). No partial file is left.
  void write(const std::string& path, const std::vector<std::string>& extra_outputs = {}) const;

  const std::vector<ProbeValue>& values() const { return values_; }
  const std::vector<ProbeNode>& nodes() const { return nodes_; }
  std::vector<std::string> input_names() const;   // the ONNX graph's inputs
  std::vector<std::string> output_names() const;  // the ONNX graph's outputs
  // With dynamic axes: the input shapes of the example run at other sizes (one per ONNX input), at
  // which the model is known to run; empty without dynamic axes.
  const std::vector<std::vector<int64_t>>& other_sizes() const { return other_sizes_; }

  // Runs the converted TorchScript graph on `inputs` (one per ONNX graph input) and returns the
  // value of each probe value that is a tensor at run time (key: index into values()). Throws
  // ExportError with libtorch's message when the run fails.
  std::map<size_t, at::Tensor> record(const std::vector<at::Tensor>& inputs) const;

  // A subgraph of the model with the ONNX nodes of nodes()[k]: inputs are the ONNX values of its
  // TorchScript inputs, outputs those of its outputs, initializers those its nodes read. Empty
  // when its nodes read any other value of the graph (then only the whole model reproduces it).
  std::string subgraph(size_t k, const std::string& path) const;

 private:
  Conversion();
  struct State;
  std::unique_ptr<State> state_;
  std::vector<ProbeValue> values_;
  std::vector<ProbeNode> nodes_;
  std::vector<std::vector<int64_t>> other_sizes_;
};

// The TorchScript model at model_path as libtorch runs it (eval mode, no autograd), loaded once
// (after the kernel libraries and the packs' custom ops, as export loads it).
class TorchScriptModel {
 public:
  TorchScriptModel(const std::string& model_path, const ExportOptions& options, const t2o::registry::Registry& registry);
  ~TorchScriptModel();
  // forward(args) (None for `--input none`; trailing arguments left out take their defaults), its
  // outputs flattened as the exporter flattens them (tuples and lists in order; numbers as 0-d
  // tensors). Throws ExportError with libtorch's message.
  std::vector<at::Tensor> run(const std::vector<c10::IValue>& args) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::string path_;
};

// Tensor files. read_tensor_file reads an ONNX TensorProto (.pb) or a NumPy array (.npy, C order,
// little-endian); `name` receives the TensorProto's name ("" for .npy).
at::Tensor read_tensor_file(const std::string& path, std::string* name = nullptr);
void write_tensor_pb(const std::string& path, const at::Tensor& t, const std::string& name);

// The graph inputs (not initializers) of an ONNX file, with element type name ("float32") and dims
// (-1 for a symbolic dim). Throws ExportError when the file cannot be read as an ONNX model.
struct OnnxInputInfo {
  std::string name, dtype;
  std::vector<int64_t> dims;
};
std::vector<OnnxInputInfo> onnx_inputs(const std::string& path);
std::vector<std::string> onnx_outputs(const std::string& path);

// `torch2onnx show` / `export --print`: the graph as text in the style of torch.onnx's verbose=True.
std::string format_onnx_file(const std::string& path);

}  // namespace t2o::core

#endif
