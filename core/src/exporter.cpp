#include "torch2onnx/core/exporter.hpp"
#include "torch2onnx/core/custom_ops.hpp"

#include "assemble/assembly.hpp"
#include "assemble/local_functions.hpp"
#include "signature/default_dtype.hpp"
#include "signature/example_inputs.hpp"
#include "signature/program_signature.hpp"
#include "run/example_run.hpp"
#include "load/archive_bounds.hpp"
#include "load/kernel_libraries.hpp"
#include "load/model_loader.hpp"
#include "assemble/model_writer.hpp"
#include "assemble/weights_copy_ahead.hpp"
#include "prepare/passes.hpp"
#include "convert/session.hpp"
#include "convert/walk.hpp"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include "load/archive_scan.hpp"
#include "assemble/onnx_schemas/check.hpp"
#include "assemble/onnx_schemas/schemas.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <future>
#include <system_error>
#include <iostream>
#include <sstream>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace t2o::core {

namespace {

std::string parent_dir(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void check_output_path(const std::string& out_path) {
  if (out_path.empty()) throw ExportError("no output file given (-o OUT.onnx)");
  std::string dir = parent_dir(out_path);
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) throw ExportError("output directory " + dir + " does not exist");
  if (!S_ISDIR(st.st_mode)) throw ExportError("output directory " + dir + " is not a directory");
  if (access(dir.c_str(), W_OK) != 0) throw ExportError("output directory " + dir + " is not writable");
  if (stat(out_path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw ExportError(out_path + " is a directory");
}

// The checker names the offending ONNX node ("... Name: Conv_3 OpType: Conv"); say which
// TorchScript op and pack made it.
std::string attribute(const std::string& message, const ConvertedModel& conv) {
  auto pos = message.find("Name: ");
  if (pos == std::string::npos) return "";
  auto end = message.find_first_of(" \n", pos + 6);
  std::string node = message.substr(pos + 6, end == std::string::npos ? std::string::npos : end - pos - 6);
  std::string origin = conv.origin_of(node);
  return origin.empty() ? "" : " (node " + node + " from " + origin + ")";
}

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// ONNX's shape inference names each dim it cannot know with a fresh "unk__N", and gives a sequence
// (SplitToSequence's parts of different lengths) one element shape: every SequenceAt of it then
// carries the same "unk__N", which ONNX Runtime reads as "equal sizes" and fails on (it plans one
// buffer for both). Such a symbol claims nothing: left unnamed wherever it appears.
void collect_sequence_symbols(const onnx::TypeProto& t, std::set<std::string>& out) {
  if (!t.has_sequence_type()) return;
  const auto& elem = t.sequence_type().elem_type();
  if (elem.has_sequence_type()) return collect_sequence_symbols(elem, out);
  if (!elem.has_tensor_type() || !elem.tensor_type().has_shape()) return;
  for (const auto& d : elem.tensor_type().shape().dim())
    if (d.has_dim_param() && d.dim_param().rfind("unk__", 0) == 0) out.insert(d.dim_param());
}

void for_each_graph(onnx::GraphProto* g, const std::function<void(onnx::GraphProto*)>& f) {
  f(g);
  for (auto& n : *g->mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) for_each_graph(a.mutable_g(), f);
      for (auto& sub : *a.mutable_graphs()) for_each_graph(&sub, f);
    }
}

void unname_sequence_symbols(onnx::ModelProto& model) {
  std::set<std::string> symbols;
  for_each_graph(model.mutable_graph(), [&](onnx::GraphProto* g) {
    for (const auto& v : g->value_info()) collect_sequence_symbols(v.type(), symbols);
    for (const auto& v : g->output()) collect_sequence_symbols(v.type(), symbols);
  });
  if (symbols.empty()) return;
  std::function<void(onnx::TypeProto*)> unname = [&](onnx::TypeProto* t) {
    if (t->has_sequence_type()) return unname(t->mutable_sequence_type()->mutable_elem_type());
    if (!t->has_tensor_type() || !t->tensor_type().has_shape()) return;
    for (auto& d : *t->mutable_tensor_type()->mutable_shape()->mutable_dim())
      if (d.has_dim_param() && symbols.count(d.dim_param())) d.clear_dim_param();
  };
  for_each_graph(model.mutable_graph(), [&](onnx::GraphProto* g) {
    for (auto& v : *g->mutable_value_info()) unname(v.mutable_type());
    for (auto& v : *g->mutable_output()) unname(v.mutable_type());
  });
}

// ONNX 1.20's inference for Attention-23 reads the key/value sequence length (and, for 3-D inputs, the
// hidden size) with dim_value(), which is 0 for a symbolic dim, and writes that 0 into the output's
// shape (the attention weights' last dim, a 3-D output's last dim). No Attention output has a 0-sized
// dim, so such a dim is put back as the graph declared it before inference, or left unknown.
// Attention output name -> its shape as the graph declares it before inference (empty if untyped).
using DeclaredShapes = std::map<std::string, onnx::TensorShapeProto>;

DeclaredShapes attention_outputs_declared(onnx::ModelProto& model) {
  DeclaredShapes declared;
  for_each_graph(model.mutable_graph(), [&](onnx::GraphProto* g) {
    std::set<std::string> outs;
    for (const auto& n : g->node())
      if (n.op_type() == "Attention" && (n.domain().empty() || n.domain() == "ai.onnx"))
        for (const auto& o : n.output()) outs.insert(o);
    for (const auto* infos : {&g->value_info(), &g->output()})
      for (const auto& v : *infos)
        if (outs.count(v.name()) && v.type().tensor_type().has_shape()) declared[v.name()] = v.type().tensor_type().shape();
    for (const auto& o : outs) declared.emplace(o, onnx::TensorShapeProto());
  });
  return declared;
}

void restore_attention_zero_dims(onnx::ModelProto& model, const DeclaredShapes& declared) {
  if (declared.empty()) return;
  auto repair = [&](onnx::ValueInfoProto& v) {
    auto it = declared.find(v.name());
    if (it == declared.end() || !v.type().tensor_type().has_shape()) return;
    auto* shape = v.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int i = 0; i < shape->dim_size(); ++i) {
      auto* dim = shape->mutable_dim(i);
      if (!dim->has_dim_value() || dim->dim_value() != 0) continue;
      if (i < it->second.dim_size()) *dim = it->second.dim(i);
      else dim->clear_dim_value();
    }
  };
  for_each_graph(model.mutable_graph(), [&](onnx::GraphProto* g) {
    for (auto& v : *g->mutable_value_info()) repair(v);
    for (auto& v : *g->mutable_output()) repair(v);
  });
}

// The ONNX checker and shape inference on the assembled model, as export runs them before writing
// (and check, as a dry run, too). Throws ExportError naming the node and the op and pack behind it.
void validate(ConvertedModel& conv, const ExportOptions& options) {
  onnx::ModelProto& model = conv.model;
  // Opsets above 17: ONNX 1.12 checks them with the schemas core/src/assemble/onnx_schemas registers; the
  // model is restored (ir_version, domains) when `checkable` goes out of scope, before writing.
  onnx_schemas::CheckableModel checkable(model);
  if (options.warn)
    for (const auto& op : checkable.unverified())
      options.warn("the ONNX checker has no schema for " + op + " at opset " + std::to_string(options.opset) +
                   ": checked only as part of the graph, not the node itself");
  try {
    // The checker prints warnings (e.g. on fallback ATen nodes) to std::cerr: keep stderr to one line.
    std::ostringstream checker_chatter;
    auto* saved = std::cerr.rdbuf(checker_chatter.rdbuf());
    try {
      onnx::checker::check_model(model);
    } catch (...) {
      std::cerr.rdbuf(saved);
      throw;
    }
    std::cerr.rdbuf(saved);
  } catch (const std::exception& e) {
    throw ExportError("the ONNX checker rejected the result: " + one_line(first_line(e.what())) + attribute(e.what(), conv));
  }
  const DeclaredShapes attention_declared = attention_outputs_declared(model);
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), checkable.inference_options());
  } catch (const std::exception& e) {
    throw ExportError("ONNX shape inference failed: " + one_line(first_line(e.what())) + attribute(e.what(), conv));
  }
  restore_attention_zero_dims(model, attention_declared);
  unname_sequence_symbols(model);
  if (model.functions_size() > 0) untype_partial_function_values(model);
}

}  // namespace

// Checks and shape-infers an assembled model (as export writes it) and passes on its warnings.
void finish_conversion(ConvertedModel& conv, const ExportOptions& options) {
  onnx::ModelProto& model = conv.model;
  if (options.node_doc_strings) annotate_origins(conv);
  validate(conv, options);
  auto specialized = conv.specialization_warnings();
  // If-1 (below opset 11) infers its outputs' shapes from the then-branch alone: shapes written from
  // that would contradict the else-branch at run time. Kept only where If merges both branches.
  if (options.opset < 11) {
    bool has_if = false;
    for (const auto& n : model.graph().node()) has_if |= n.op_type() == "If";
    if (has_if) model.mutable_graph()->clear_value_info();
  }
  if (options.warn) {
    for (size_t i = 0; i < specialized.size() && i < 5; ++i) options.warn("size specialized: " + specialized[i]);
    if (specialized.size() > 5)
      options.warn("size specialized: and " + std::to_string(specialized.size() - 5) + " more op(s)");
  }
}

void load_kernel_libraries(const ExportOptions& options) {
  load_kernel_libraries(options.kernel_libraries, options.default_kernel_libraries, options.warn);
}

namespace {

// What export_model and export_module share before the model is in memory: options, output path, kernel
// libraries, the packs' custom-op declarations.
void start_export(const std::string& out_path, const ExportOptions& options, const t2o::registry::Registry& registry) {
  if (options.opset < kMinOpset || options.opset > kMaxOpset)
    throw ExportError("--opset " + std::to_string(options.opset) + " is out of range: supported opsets are " +
                      std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset));
  check_output_path(out_path);
  // Named phases for --timings: the start-up work before the model loads.
  if (options.progress) options.progress("kernel-libraries", 0, 0);
  // Real kernels first: a pack's declaration of an op whose kernel is loaded is then skipped.
  load_kernel_libraries(options.kernel_libraries, options.default_kernel_libraries, options.warn);
  if (options.progress) options.progress("custom-ops", 0, 0);
  declare_custom_ops(registry, options.warn);  // before loading: the model may call the packs' custom ops
}

// The rest of an export but the write, from a module in memory (loaded here, or the caller's own
// clone). The options are signature.options: the given ones completed by the .pt's saved signature.
PendingWrite convert_loaded(torch::jit::Module module, const std::string& model_label, const std::string& out_path,
                            const ResolvedSignature& signature, const t2o::registry::Registry& registry);

// export_model's own head start on weights bound for OUT.data (assemble/weights_copy_ahead.hpp): the
// writer's view of it, which owns the copy until the write is done; null when none applies.
std::shared_ptr<WeightsHeadStart> copy_weights_ahead(const std::string& model_path, const std::string& out_path,
                                                     bool external_data) {
  std::shared_ptr<WeightsCopyAhead> copy = WeightsCopyAhead::start(model_path, out_path, external_data);
  if (!copy) return nullptr;
  auto view = std::make_shared<WeightsHeadStart>();
  view->data_temp_path = copy->data_temp_path();
  view->device = copy->device;
  view->inode = copy->inode;
  view->size = copy->size;
  view->mtime_ns = copy->mtime_ns;
  const auto& r = copy->records();
  for (size_t k = 0; k + 2 < r.size(); k += 3) view->records.push_back({r[k], r[k + 1], r[k + 2]});
  view->wait = [copy] { return copy->wait(); };
  view->stop = [copy] { copy->stop(); };
  return view;
}

// The write, as export_model and export_module report it: phase "write", then bytes done.
ExportStats write_now(PendingWrite pending, const ExportOptions& options) {
  if (options.progress) options.progress("write", 0, 0);
  return pending.write([&](uint64_t done, uint64_t total) {
    if (options.progress) options.progress("write", done, total);
  });
}

}  // namespace

struct PendingWrite::State {
  onnx::ModelProto model;
  std::vector<StreamedTensor> streamed;
  ExportStats stats;
  std::string out_path;
  bool force_external = false;
  std::shared_ptr<WeightsHeadStart> head_start;
};

PendingWrite::PendingWrite() = default;
PendingWrite::PendingWrite(std::unique_ptr<State> state) : state_(std::move(state)) {}
PendingWrite::PendingWrite(PendingWrite&&) noexcept = default;
PendingWrite& PendingWrite::operator=(PendingWrite&&) noexcept = default;
PendingWrite::~PendingWrite() = default;

ExportStats PendingWrite::write(const std::function<void(uint64_t, uint64_t)>& progress) {
  if (!state_) throw ExportError("internal error: a model written twice, or never converted");
  // Whatever happens, the model and its weights go with this call.
  const std::unique_ptr<State> state = std::move(state_);
  auto written = write_model(state->model, state->streamed, state->out_path, state->force_external, progress,
                             state->head_start.get());
  ExportStats stats = state->stats;
  stats.external_data = written.external;
  stats.data_path = written.data_path;
  stats.bytes_written = written.bytes_written;
  stats.bytes_written_ahead = written.bytes_ahead;
  return stats;
}

namespace {

// The second entrance: an exported program (.pt2). The kernel libraries load first: the program's
// ops are looked up in libtorch (and the compatibility library) as its graph is built.
PendingWrite export_program_before_write(const std::string& model_path, const std::string& out_path,
                                         const ExportOptions& given, const t2o::registry::Registry& registry) {
  DefaultDtypeScope default_dtype(given.default_dtype);
  start_export(out_path, given, registry);
  if (given.progress) given.progress("load", 0, 0);
  OpenedProgram program = open_exported_program(model_path, given);
  return convert_loaded(std::move(program.module), model_path, out_path, program.signature, registry);
}

}  // namespace

PendingWrite export_model_before_write(const std::string& model_path, const std::string& out_path,
                                       const ExportOptions& given, const t2o::registry::Registry& registry) {
  if (given.progress) given.progress("signature", 0, 0);
  if (is_exported_program_file(model_path)) return export_program_before_write(model_path, out_path, given, registry);
  check_archive_bounds(model_path);  // before anything reads a record of it (the saved signature)
  ResolvedSignature signature = resolve_signature(given, model_path);  // --input from the .pt, examples
  const ExportOptions& options = signature.options;
  // Weights bound for OUT.data start on their way now, unless the program started them already.
  if (!options.weights_head_start && options.lazy_weights && options.export_params)
    signature.options.weights_head_start = copy_weights_ahead(model_path, out_path, options.external_data);
  DefaultDtypeScope default_dtype(options.default_dtype);  // the model's torch.get_default_dtype()
  start_export(out_path, options, registry);
  if (options.progress) options.progress("load", 0, 0);
  return convert_loaded(load_torchscript(model_path, options.lazy_weights, options.lazy_weights_handler), model_path,
                        out_path, signature, registry);
}

ExportStats export_model(const std::string& model_path, const std::string& out_path, const ExportOptions& options,
                         const t2o::registry::Registry& registry) {
  return write_now(export_model_before_write(model_path, out_path, options, registry), options);
}

ExportStats export_module(const torch::jit::Module& module, const std::string& out_path, const ExportOptions& given,
                          const t2o::registry::Registry& registry) {
  if (given.progress) given.progress("signature", 0, 0);
  const ResolvedSignature signature = resolve_signature(given, "");  // --example-inputs; no archive to read
  const ExportOptions& options = signature.options;
  DefaultDtypeScope default_dtype(options.default_dtype);
  start_export(out_path, options, registry);
  if (options.progress) options.progress("load", 0, 0);
  // prepare() sets the training mode and rewrites method graphs: work on a copy, never the caller's
  // module. The copy shares the weights (a deep copy cost a quarter of resnet50's export): nothing of
  // an export writes a tensor it did not make, and the example runs copy any weight a model writes.
  torch::jit::Module copy;
  try {
    copy = module.clone(/*inplace=*/true);
  } catch (const std::exception& e) {
    throw ExportError("the module cannot be copied for export: " + error_reason(e.what()), e.what());
  }
  return write_now(convert_loaded(std::move(copy), "<module " + module.type()->name()->qualifiedName() + ">", out_path,
                                  signature, registry),
                   options);
}

namespace {

// ONNX's schema registry (its own schemas, then ours past opset 17) is built the first time the
// checker needs it: 9 ms, done on the second core while the first export prepares and runs the
// model. The checker's own call waits for it and reports a failure; nothing else reads the registry
// before the check.
std::future<void> build_schema_registry_aside() {
  static std::atomic<bool> started{false};
  if (started.exchange(true)) return {};
  try {
    return std::async(std::launch::async, [] {
      try {
        onnx_schemas::register_post17_schemas();
      } catch (const std::exception&) {
      }
    });
  } catch (const std::system_error&) {
    return {};  // no thread to be had: the checker builds it
  }
}

// State written inside forward() but for what a program returns as NAME.updated (its loader warned).
std::vector<std::string> state_not_returned(const std::vector<std::string>& written, const std::vector<std::string>& outputs) {
  std::vector<std::string> out;
  for (const auto& key : written)
    if (std::find(outputs.begin(), outputs.end(), key + ".updated") == outputs.end()) out.push_back(key);
  return out;
}

PendingWrite convert_loaded(torch::jit::Module module, const std::string& model_path, const std::string& out_path,
                            const ResolvedSignature& signature, const t2o::registry::Registry& registry) {
  const ExportOptions& options = signature.options;
  auto phase = [&](const char* name) {
    if (options.progress) options.progress(name, 0, 0);
  };
  const auto schema_registry = build_schema_registry_aside();  // waited for on return at the latest
  phase("prepare");
  auto prepared = prepare(std::move(module), model_path, options.inputs, training_mode(options));
  warn_training_mode(prepared.graph, training_mode(options), prepared.dropped_state_updates, options.warn);
  warn_state_in_call(state_not_returned(prepared.state_in_call, options.output_names), options.warn);
  attach_examples(prepared, signature);
  auto specs = prepared.input_specs;
  Session session(registry, options, prepared);
  phase("run");
  {
    CustomOpExampleRun example_run;  // placeholder kernels of custom ops follow their shape rule here only
    session.plan = ExampleRun(options, prepared, std::move(specs)).record(session.types);
  }
  after_example_runs(prepared.graph, session.types, folds_constants(options),
                     registry.lookup("t2o::rms_norm", "", options.opset) != nullptr, options.warn);
  phase("convert");
  convert_graph(session);
  ConvertedModel conv = assemble(session);
  onnx::ModelProto& model = conv.model;
  // The frozen module's weights now live in the model; release the module before checking and writing.
  prepared = PreparedModel();

  phase("check");
  finish_conversion(conv, options);
  auto state = std::make_unique<PendingWrite::State>();
  state->model = std::move(model);
  state->streamed = std::move(conv.streamed);
  state->stats = conv.stats;
  state->out_path = out_path;
  state->force_external = options.external_data;
  state->head_start = options.weights_head_start;
  return PendingWrite(std::move(state));
}

}  // namespace

CheckReport check_model(const std::string& model_path, const ExportOptions& given,
                        const t2o::registry::Registry& registry) {
  const bool is_program = is_exported_program_file(model_path);
  if (!is_program) check_archive_bounds(model_path);  // before anything reads a record of it (the saved signature)
  ResolvedSignature signature = is_program ? ResolvedSignature{given, {}, ""} : resolve_signature(given, model_path);
  DefaultDtypeScope default_dtype(signature.options.default_dtype);
  if (signature.options.opset < kMinOpset || signature.options.opset > kMaxOpset)
    throw ExportError("--opset " + std::to_string(signature.options.opset) + " is out of range: supported opsets are " +
                      std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset));
  CheckReport report;
  report.model = model_path;
  report.opset = signature.options.opset;
  load_kernel_libraries(signature.options.kernel_libraries, signature.options.default_kernel_libraries,
                        signature.options.warn);
  declare_custom_ops(registry, signature.options.warn);
  torch::jit::Module module;
  auto unknown_ops = [&](const std::vector<CustomOpUse>& ops, const std::string& message) {
    // Nothing else can be checked without the graph: the unknown ops are the whole answer.
    report.loaded = false;
    for (const auto& use : ops) {
      UnconvertibleOp op;
      op.op = use.op;
      op.reason = "unknown_custom_op";
      op.message = message;
      op.count = use.count;
      op.locations = use.locations;
      report.unconvertible_nodes += use.count;
      report.ops.push_back(std::move(op));
    }
  };
  if (is_program) {
    try {
      OpenedProgram program = open_exported_program(model_path, given);
      module = std::move(program.module);
      signature = std::move(program.signature);
    } catch (const program::UnknownProgramOpsError& e) {
      unknown_ops(e.ops, "no libtorch operator, loaded kernel library or pack's schema implements this op");
      return report;
    }
  }
  const ExportOptions& options = signature.options;
  if (!is_program) try {
    module = load_torchscript(model_path, options.lazy_weights, options.lazy_weights_handler);
  } catch (const UnknownCustomOpsError& e) {
    // Nothing else can be checked without loading: the custom ops are the whole answer.
    report.loaded = false;
    for (const auto& use : e.ops) {
      UnconvertibleOp op;
      op.op = use.op;
      op.reason = "unknown_custom_op";
      op.message = "no loaded pack declares this custom op's schema, so libtorch cannot load the model";
      op.count = use.count;
      op.locations = use.locations;
      report.unconvertible_nodes += use.count;
      report.ops.push_back(std::move(op));
    }
    return report;
  }
  auto prepared = prepare(std::move(module), model_path, options.inputs, training_mode(options));
  warn_training_mode(prepared.graph, training_mode(options), prepared.dropped_state_updates, options.warn);
  warn_state_in_call(state_not_returned(prepared.state_in_call, options.output_names), options.warn);
  attach_examples(prepared, signature);
  auto specs = prepared.input_specs;
  Session session(registry, options, prepared);
  session.check_mode = true;
  if (options.inputs.empty()) {
    fold_static_shapes(prepared.graph, TypeTable());
    scan_missing(session);
  } else {
    {
      CustomOpExampleRun example_run;
      session.plan = ExampleRun(options, prepared, std::move(specs)).record(session.types);
    }
    after_example_runs(prepared.graph, session.types, folds_constants(options),
                       registry.lookup("t2o::rms_norm", "", options.opset) != nullptr, options.warn);
    convert_graph(session);
    report.symbolics_run = true;
    // A dry run of export to the end: with every op converted, assemble (names, dynamic axes) and let
    // the checker see the model, so check fails where export would.
    if (session.failures.empty()) {
      ConvertedModel conv = assemble(session);
      try {
        validate(conv, options);
      } catch (const ExportError& e) {
        UnconvertibleOp op;
        op.op = "(model)";
        op.reason = "onnx_checker";
        op.message = e.what();
        op.count = 1;
        report.unconvertible_nodes = 0;
        report.ops.push_back(std::move(op));
      }
    }
  }
  report.nodes = session.torch_nodes;
  // Group by op, overload, reason and message; keep the first few locations.
  std::map<std::tuple<std::string, std::string, std::string, std::string>, size_t> index;
  for (const auto& f : session.failures) {
    ++report.unconvertible_nodes;
    auto key = std::make_tuple(f.op, f.overload, std::string(reason_name(f.reason)), f.message);
    auto it = index.find(key);
    if (it == index.end()) {
      UnconvertibleOp op;
      op.op = f.op;
      op.overload = f.overload;
      op.schema = f.schema;
      op.reason = reason_name(f.reason);
      op.message = f.message;
      op.min_opset = f.min_opset;
      it = index.emplace(key, report.ops.size()).first;
      report.ops.push_back(std::move(op));
    }
    auto& op = report.ops[it->second];
    if (op.count++ < 3) op.locations.push_back(f.location);
  }
  std::stable_sort(report.ops.begin(), report.ops.end(),
                   [](const UnconvertibleOp& a, const UnconvertibleOp& b) { return a.count > b.count; });
  return report;
}

}  // namespace t2o::core
