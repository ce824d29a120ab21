// The core's public entry points: load a TorchScript file, convert it through the loaded packs,
// write a checked ONNX file. Everything here reports failure as t2o::core::ExportError, whose
// message is one line saying what went wrong and where.
#ifndef TORCH2ONNX_CORE_EXPORTER_HPP
#define TORCH2ONNX_CORE_EXPORTER_HPP

#include <torch2onnx/registry.hpp>
#include "torch2onnx/core/ir_version.hpp"
#include <torch2onnx/version.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace torch::jit {
struct Module;  // <torch/script.h>; export_module's callers have it
}

namespace t2o::core {

// what(): one line saying what went wrong and where. details(): when the line was chosen from a
// longer message (libtorch's, with its TorchScript traceback: see error_reason.hpp), that whole
// message, for --verbose; otherwise empty.
class ExportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  ExportError(const std::string& line, const std::string& details)
      : std::runtime_error(line), details_(std::make_shared<const std::string>(details)) {}
  const std::string& details() const {
    static const std::string none;
    return details_ ? *details_ : none;
  }

 private:
  std::shared_ptr<const std::string> details_;
};

// The range of --opset (the default domain's version). The one place it is written: --help, the
// `plugins` listing, the support matrix and the range errors all read these.
constexpr int64_t kMinOpset = 9;
constexpr int64_t kMaxOpset = 26;  // ONNX 1.12's checker knows 17; core/src/assemble/onnx_schemas adds the rest
constexpr int64_t kDefaultOpset = 17;
// The highest opset whose every pack is tested as completely as at the default (README: which opsets
// are fully validated).
constexpr int64_t kMaxValidatedOpset = 17;

// Bad --input for the model's forward(): a spec that does not match an argument's type, or the wrong
// number of them. The CLI exits 2 on it, as on other usage mistakes.
class SignatureError : public ExportError {
 public:
  using ExportError::ExportError;
};

// One forward() argument as --input gives it: a tree whose leaves are tensors (graph inputs) or
// values baked into the graph. Grammar (input_spec.cpp):
//   spec := TYPE[DIMS]                  a tensor: float32[1,3,224,224]; int64[] is 0-d
//         | ( spec, ... )               a tuple or list argument; [ spec, ... ] also reads as one
//         | { KEY: spec, ... }          a Dict[str, ...] argument
//         | none                        None for an Optional argument
//         | int=N | float=X | bool=true|false | str=TEXT   a primitive baked in as a constant
struct InputSpec {
  enum class Kind { Tensor, Sequence, Dict, None, Int, Float, Bool, Str };
  Kind kind = Kind::Tensor;
  std::string dtype;  // Tensor: as in dtype_table() ("float32", "int64", ...); "none" for None
  std::vector<int64_t> dims;  // Tensor
  std::vector<InputSpec> elements;  // Sequence items, Dict values (in the order given)
  std::vector<std::string> keys;    // Dict keys
  int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::string str_value;
  std::string text;  // as the user wrote it
};
// Parses one --input (the grammar above); throws ExportError naming the spec on malformed input.
InputSpec parse_input_spec(const std::string& text);
// The tensor leaves of a spec, depth first: the graph inputs it makes, in order.
std::vector<InputSpec> flatten_input_spec(const InputSpec& spec);

// Axes of one input or output that may take other sizes at run time: "NAME=0,1" or "NAME=0:batch,1:seq".
struct DynamicAxes {
  std::string name;  // an input or output name
  std::vector<std::pair<int64_t, std::string>> axes;  // axis, symbolic dim name ("" = automatic)
};
// Parses "NAME=AXES"; throws ExportError naming the spec on malformed input.
DynamicAxes parse_dynamic_axes(const std::string& text);

// What export does with a node no symbolic converts (as torch.onnx's operator_export_type).
enum class OperatorExportType {
  Onnx,          // strict: every op must convert (default)
  AtenFallback,  // emit an ATen node (domain org.pytorch.aten, attribute `operator`) instead
  Fallthrough,   // emit the op as a node of its own TorchScript namespace as domain
  Aten,          // torch.onnx's ONNX_ATEN: every aten:: op with tensor results an ATen node, even
                 // where a symbolic exists (sizes, prim ops and control flow convert as usual)
};
OperatorExportType parse_operator_export_type(const std::string& text);

// The mode the model is exported in (as torch.onnx's training=TrainingMode.*). Ops keep the train
// flag they have after it is applied: a traced model keeps the mode it was traced in.
enum class TrainingMode {
  Eval,      // EVAL: every module's training flag false (the default)
  Preserve,  // PRESERVE: each module's own training flag, as saved
  Train,     // TRAINING: every module's training flag true: Dropout drops, BatchNorm normalizes
             // with the batch's statistics; the running-statistics updates are not exported
};
// "eval", "preserve", "train" (also torch.onnx's names: "training", "TrainingMode.TRAINING", ...);
// throws ExportError naming the text.
TrainingMode parse_training_mode(const std::string& text);
const char* training_mode_name(TrainingMode mode);  // "eval", "preserve", "train"

// A head start on a large export's weights (core/src/assemble/weights_copy_ahead.hpp): the .pt's weight
// records, copied in archive order (64-byte aligned from offset 0) into OUT.data's temporary file while
// libtorch starts (the torch2onnx program) or the model loads and converts (export_model takes its own
// when none is given, weights go to OUT.data and lazy_weights is on). The writer keeps the leading records that match its own layout and
// writes the rest; the file's identity and each record's place are checked, so a head start never
// changes what is written.
struct WeightsHeadStart {
  std::string data_temp_path;                       // OUT.data.tmp.<pid>: the writer's own temporary name
  uint64_t device = 0, inode = 0, size = 0, mtime_ns = 0;  // the .pt as the copy saw it
  struct Record {
    uint64_t source_offset = 0, length = 0, data_offset = 0;
  };
  std::vector<Record> records;
  std::function<size_t()> wait;  // ends the copy: how many leading records it copied whole
  std::function<void()> stop;    // stops the copy early (the writer will not use it)
};

struct ExportOptions {
  int64_t opset = kDefaultOpset;
  std::vector<InputSpec> inputs;
  std::vector<std::string> input_names;   // empty: forward()'s argument names
  std::vector<std::string> output_names;  // empty: output_0, output_1, ...
  std::vector<DynamicAxes> dynamic_axes;
  OperatorExportType operator_export_type = OperatorExportType::Onnx;
  bool external_data = false;  // weights in OUT.data even below 2 GB (above, always)
  std::shared_ptr<WeightsHeadStart> weights_head_start;  // set by the torch2onnx program
  // Called as phases advance: ("signature"|"kernel-libraries"|"custom-ops", the start-up work before
  // the model loads, then "load"|"prepare"|"run"|"convert"|"check"|"write", done, total).
  std::function<void(const std::string& phase, uint64_t done, uint64_t total)> progress;
  std::string producer_version = T2O_VERSION_STRING;  // project(VERSION) in CMakeLists.txt
  // Target version of custom ONNX domains (--custom-opset DOMAIN=VERSION): selects the symbolics
  // registered for that domain as --opset does for the default domain, and goes into opset_import.
  std::map<std::string, int64_t> custom_opsets;
  // Called for warnings from symbolics and the core (one line each).
  std::function<void(const std::string&)> warn;
  // Libraries of TorchScript kernels loaded before the model (--load-library), after the default
  // ones found automatically (torchvision's) unless default_kernel_libraries is false.
  std::vector<std::string> kernel_libraries;
  bool default_kernel_libraries = true;
  // --dynamic-input: the example shapes, one per input, of the run that finds which dims are
  // dynamic (default: every dynamic axis one larger). Models that resize internally (detection
  // models scale every image to a fixed short side) need sizes of another aspect ratio there.
  std::vector<InputSpec> dynamic_inputs;
  // Each node's doc_string names the TorchScript node, location and pack that made it (as
  // torch.onnx's verbose=True keeps a scope per node; export --print shows it).
  bool node_doc_strings = false;
  // --example-inputs DIR: one .npy or ONNX TensorProto .pb file per graph input (the flattened
  // tensors of the --input specs), in order: the values of the first example run.
  std::string example_inputs_dir;
  // --input-range LO:HI: integer inputs without example values are drawn from LO..HI inclusive
  // (default 1:1, every integer input 1: a valid index into any non-empty dim, a safe divisor).
  std::optional<std::pair<int64_t, int64_t>> input_range;
  // As torch.onnx's do_constant_folding (default on): in eval mode, BatchNorm after a convolution or
  // linear layer is folded into its weights (computed with libtorch). Off: every op as the model has it.
  bool constant_folding = true;
  // Whether the caller set constant_folding (--constant-folding / --no-constant-folding): if not, the
  // do_constant_folding torch2onnx.save recorded applies.
  bool constant_folding_given = false;
  // As torch.onnx's training (--training). Unset: the mode torch2onnx.save recorded, else eval.
  std::optional<TrainingMode> training;
  // Whether the signature a .pt carries (torch2onnx.save) may fill in what the options leave unset.
  bool use_saved_signature = true;
  // Lazy weights (export_model only): large weight records stay in the .pt file instead of being read into
  // memory when the model loads (core/src/load/lazy_weights.hpp); what the export reads comes from the page
  // cache, and untouched bytes are copied file-to-file into the ONNX file. Fast and frugal on large models.
  // By default no process-wide state is involved: after the load each record becomes a private mapping of
  // the file (archives whose load runs code, a __setstate__ or a custom class, load eagerly instead).
  // lazy_weights_handler: a process-wide SIGSEGV handler also fills on first touch what the load itself
  // reads (the allocator is wrapped while the model loads), so archives whose load runs code stay lazy
  // too; the torch2onnx program turns it on. T2O_EAGER_WEIGHTS=1 turns lazy weights off everywhere.
  bool lazy_weights = true;
  bool lazy_weights_handler = false;
  // As torch.onnx's export_params (--no-weights): false makes the module's weights (the constants
  // freezing named after module attributes) graph inputs after the model's own, with no initializer,
  // so the weights are fed at run time; constant folding is then off (the graph must read the
  // module's own weights, not folded ones). Other constants stay initializers.
  bool export_params = true;
  // As torch.onnx's keep_initializers_as_inputs (--keep-initializers-as-inputs): every initializer is
  // also a graph input (what IR version < 4 required and some runtimes still expect).
  bool keep_initializers_as_inputs = false;
  // Quantized graph inputs and results (--dequantized-io): false (the default) gives them as torch.onnx
  // 1.13 does, each a triple of ONNX values: the integer tensor (uint8/int8/int32), its scale (an input:
  // double, a result: float) and zero point (an input: int64, a result: uint8/int8), all 0-d but the
  // tensor; true gives each as one float32 tensor of its dequantized values (torch2onnx's older form).
  bool dequantized_io = false;
  // torch.get_default_dtype() the model was traced or scripted under: "float32" or "float64" (what
  // true division of integers, Python floats and float factories without a dtype give). Empty: the
  // one torch2onnx.save recorded in the .pt's signature, else float32. The example runs, constant
  // folding and the packs (Ctx::default_dtype) all use it.
  std::string default_dtype;
  // As torch.onnx's export_modules_as_functions (--export-modules-as-functions[=TYPES], opset 15 and
  // later): each call of a module of these types (qualified names, torch.nn.modules.linear.Linear or
  // __main__.Block) becomes a call of an ONNX local function, one FunctionProto per module type.
  // On with an empty list: every module type of the model.
  bool modules_as_functions = false;
  std::vector<std::string> function_module_types;
  // --model NAME: which program of a .pt2 archive that holds several (torch.export's PT2 archive);
  // empty: the only one.
  std::string program_name;
  // Key/value pairs for the ModelProto's metadata_props (an exported program's range constraints:
  // "torch.export.range_constraints" -> {"s0": [1, 64]}).
  std::vector<std::pair<std::string, std::string>> metadata_props;
};
// The training mode an export runs in: the given one, else eval.
inline TrainingMode training_mode(const ExportOptions& o) { return o.training.value_or(TrainingMode::Eval); }
// Whether the BatchNorm folding of do_constant_folding runs: not when the weights are inputs, and only
// in eval mode (torch.onnx runs its eval peephole, which folds, only with training=EVAL).
inline bool folds_constants(const ExportOptions& o) {
  return o.constant_folding && o.export_params && training_mode(o) == TrainingMode::Eval;
}
// The kernel libraries found automatically on this machine, in load order: {name, path} (torch2onnx's
// torch.onnx.ops and PyTorch 2.x compatibility libraries, torchvision's). Loaded before a model unless
// ExportOptions::default_kernel_libraries is false; `torch2onnx plugins` lists them.
std::vector<std::pair<std::string, std::string>> default_kernel_libraries();
// Whether each default kernel library is first loaded in a forked child, as every --load-library file
// is: a library whose op registrations clash with ops already registered aborts the process that
// loads it (a throw from a static initialiser), so the child dies instead and the export goes on
// without it, with a warning. On by default, since a host program may have registered anything
// before. The torch2onnx program turns it off: nothing registers ops in it before the default
// libraries, which are its own (built and tested with it) and torchvision's (its own namespace), and
// the forks cost more than the rest of its start-up (a fork of a process holding libtorch, and each
// library loaded twice). Process-wide; the explicit libraries are always tried first.
void set_default_kernel_library_probe(bool probe);
// Loads now the kernel libraries an export with these options loads first: the default ones (unless
// options.default_kernel_libraries is false), then options.kernel_libraries; warnings go to
// options.warn. A program that loads its own models calls it before torch::jit::load, as Python
// imports torchvision before loading a model that calls its ops: models that call torchvision's or
// PyTorch 2.x's ops then load, and each export finds the libraries already loaded (a library is
// loaded once per process) instead of loading them during its first call.
void load_kernel_libraries(const ExportOptions& options);
// Parses "LO:HI" (--input-range); throws ExportError naming the text.
std::pair<int64_t, int64_t> parse_input_range(const std::string& text);
// "float32" or "float64" (--default-dtype; also float/double, torch.float32/torch.float64); throws
// ExportError naming the text.
std::string parse_default_dtype(const std::string& text);

// The input shapes of the second example run: `dynamic_inputs` checked against the --input specs
// (same count, dtypes and ranks; other sizes on exactly the dynamic axes, which are where `default_sizes`
// differs from `shapes`), or `default_sizes` when none is given. Throws ExportError naming the spec.
std::vector<std::vector<int64_t>> dynamic_run_shapes(const std::vector<InputSpec>& dynamic_inputs,
                                                     const std::vector<InputSpec>& specs,
                                                     const std::vector<std::vector<int64_t>>& shapes,
                                                     const std::vector<std::vector<int64_t>>& default_sizes);

struct ExportStats {
  size_t torch_nodes = 0;
  size_t onnx_nodes = 0;
  size_t initializers = 0;
  size_t initializer_bytes = 0;
  size_t fallback_nodes = 0;  // ops emitted by --operator-export-type aten-fallback/fallthrough
  bool external_data = false;
  std::string data_path;
  uint64_t bytes_written = 0;
  uint64_t bytes_written_ahead = 0;  // of those, kept from the copy made ahead of the write (WeightsHeadStart)
};

// One kind of op that cannot be converted, as `torch2onnx check` reports it.
struct UnconvertibleOp {
  std::string op;        // "aten::upsample_bicubic2d"
  std::string overload;  // "vec" or ""
  std::string schema;    // the overload's schema, "" if unknown
  // no_symbolic: no pack converts it; needs_opset: only from min_opset on; symbolic_refused: the
  // symbolic refused these arguments; symbolic_failed: the symbolic failed; unknown_custom_op: a
  // custom op whose schema no pack declares (libtorch cannot load the model).
  std::string reason;
  std::string message;   // the symbolic's own message, or a sentence for the other reasons
  std::optional<int64_t> min_opset;
  size_t count = 0;
  std::vector<std::string> locations;  // the first few
};

struct CheckReport {
  std::string model;
  int64_t opset = kDefaultOpset;
  bool symbolics_run = false;  // false when no --input was given: only symbolic lookup was checked
  bool loaded = true;          // false when unknown custom ops kept libtorch from loading the model
  size_t nodes = 0;            // TorchScript nodes looked at (constants excluded)
  size_t unconvertible_nodes = 0;
  std::vector<UnconvertibleOp> ops;  // sorted by count, descending
};

// A dry run of export that keeps going after failures and reports every op that cannot be converted.
// Throws ExportError for an unreadable model or bad options.
CheckReport check_model(const std::string& model_path, const ExportOptions& options,
                        const t2o::registry::Registry& registry);

// Converts model_path to out_path. No partial file is ever left at out_path.
ExportStats export_model(const std::string& model_path, const std::string& out_path, const ExportOptions& options,
                         const t2o::registry::Registry& registry);

// export_model in two steps, for a program that writes one model while it converts the next (`export
// --batch`): export_model_before_write loads, converts and checks the model; write() then writes out_path
// (and OUT.data) exactly as export_model would and returns the same stats, or throws as it would. write()
// may run on another thread while this one converts the next model (it touches no other export's state);
// write one output path at a time. Destroyed unwritten, it writes nothing.
class PendingWrite {
 public:
  PendingWrite();
  PendingWrite(PendingWrite&&) noexcept;
  PendingWrite& operator=(PendingWrite&&) noexcept;
  ~PendingWrite();
  // Once. progress gets (bytes done, bytes in all) as the write goes.
  ExportStats write(const std::function<void(uint64_t done, uint64_t total)>& progress = {});

  struct State;  // the checked model and its weights (exporter.cpp)
  explicit PendingWrite(std::unique_ptr<State> state);

 private:
  std::unique_ptr<State> state_;
};
PendingWrite export_model_before_write(const std::string& model_path, const std::string& out_path,
                                       const ExportOptions& options, const t2o::registry::Registry& registry);

// Converts a module already in memory (e.g. torch::jit::load'ed by the caller, or scripted in-process) to
// out_path. The module itself is not changed: a copy sharing its weights (module.clone(true)) is frozen and
// converted, and no step of an export writes those weights (an example run copies any it would write).
ExportStats export_module(const torch::jit::Module& module, const std::string& out_path, const ExportOptions& options,
                          const t2o::registry::Registry& registry);

}  // namespace t2o::core

#endif
