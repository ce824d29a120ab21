// torch2onnx verify's view of a conversion: the model converted in memory, each top-level
// TorchScript node with the ONNX values of its tensor inputs and outputs, and libtorch's values of
// those TorchScript values on given inputs (the converted graph run with them as extra outputs).
#include "torch2onnx/core/verify.hpp"
#include "torch2onnx/core/custom_ops.hpp"
#include "torch2onnx/core/dtype_table.hpp"
#include "torch2onnx/core/error_reason.hpp"

#include "assemble/assembly.hpp"
#include "signature/default_dtype.hpp"
#include "signature/example_inputs.hpp"
#include "signature/program_signature.hpp"
#include "run/example_run.hpp"
#include "load/archive_bounds.hpp"
#include "load/kernel_libraries.hpp"
#include "common/locations.hpp"
#include "load/model_loader.hpp"
#include "assemble/model_writer.hpp"
#include "prepare/passes.hpp"
#include "convert/session.hpp"
#include "convert/walk.hpp"

#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/runtime/interpreter.h>
#include <c10/core/InferenceMode.h>

#include <functional>
#include <unordered_map>
#include <unordered_set>

namespace t2o::core {

struct Conversion::State {
  ExportOptions options;
  PreparedModel prepared;
  ConvertedModel conv;
  std::vector<const torch::jit::Value*> torch_values;  // parallel to values_
  std::vector<int32_t> dtypes;                         // ONNX element type of each value (0 unknown)
};

Conversion::Conversion() : state_(std::make_unique<State>()) {}
Conversion::~Conversion() = default;

namespace {

bool is_tensor(const torch::jit::Value* v) { return v->type()->kind() == c10::TypeKind::TensorType; }

}  // namespace

std::unique_ptr<Conversion> Conversion::convert(const std::string& model_path, const ExportOptions& options,
                                                const t2o::registry::Registry& registry) {
  if (options.opset < kMinOpset || options.opset > kMaxOpset)
    throw ExportError("--opset " + std::to_string(options.opset) + " is out of range: supported opsets are " +
                      std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset));
  std::unique_ptr<Conversion> out(new Conversion());
  State& st = *out->state_;
  const bool program = is_exported_program_file(model_path);
  if (!program) check_archive_bounds(model_path);  // before anything reads a record of it (the saved signature)
  ResolvedSignature signature = program ? ResolvedSignature{options, {}, ""} : resolve_signature(options, model_path);
  DefaultDtypeScope default_dtype(signature.options.default_dtype);
  load_kernel_libraries(options.kernel_libraries, options.default_kernel_libraries, options.warn);
  declare_custom_ops(registry, options.warn);
  torch::jit::Module module;
  if (program) {
    ExportOptions quiet = options;
    quiet.warn = nullptr;  // the export says them
    OpenedProgram opened = open_exported_program(model_path, quiet);
    module = std::move(opened.module);
    signature = std::move(opened.signature);
    signature.options.warn = options.warn;
  } else {
    module = load_torchscript(model_path, false);  // eager weights: verify runs the module again
  }
  st.options = signature.options;
  st.prepared = prepare(std::move(module), model_path, st.options.inputs, training_mode(st.options));
  attach_examples(st.prepared, signature);
  auto specs = st.prepared.input_specs;
  Session session(registry, st.options, st.prepared);
  {
    CustomOpExampleRun example_run;
    session.plan = ExampleRun(st.options, st.prepared, std::move(specs)).record(session.types);
  }
  // The same passes as export, so that what is verified is what export writes.
  after_example_runs(st.prepared.graph, session.types, folds_constants(st.options),
                     registry.lookup("t2o::rms_norm", "", st.options.opset) != nullptr, options.warn);
  out->other_sizes_ = session.plan.second_run_shapes;
  convert_graph(session);

  // The TorchScript tensor values of the top-level nodes and the ONNX values holding them (read
  // before assembly, which lets go of the value table).
  std::unordered_map<const torch::jit::Value*, size_t> index;
  auto value_index = [&](const torch::jit::Value* v) {
    auto it = index.find(v);
    if (it != index.end()) return it->second;
    ProbeValue pv;
    pv.id = v->unique();
    pv.name = "%" + v->debugName();
    int32_t dtype = 0;
    if (const TensorInfo* t = session.types.find(v)) dtype = t->dtype;
    if (!session.values.is_bound(v)) {
      pv.folded = "not converted to an ONNX value";
    } else {
      const ValueRec& r = session.values.rec(session.values.handle_of(v));
      if (r.constant) pv.folded = "a constant of the ONNX graph (a weight, or folded at export time): not compared";
      else if (r.kind != T2O_KIND_TENSOR || r.onnx.empty()) pv.folded = "not held by an ONNX tensor";
      else pv.onnx = r.onnx;
      if (!dtype) dtype = r.dtype;
    }
    out->values_.push_back(pv);
    st.torch_values.push_back(v);
    st.dtypes.push_back(dtype);
    index.emplace(v, out->values_.size() - 1);
    return out->values_.size() - 1;
  };
  std::unordered_map<const void*, size_t> node_index;
  for (auto* v : st.prepared.graph->inputs())
    if (is_tensor(v)) value_index(v);
  for (auto* node : st.prepared.graph->nodes()) {
    if (node->kind() == c10::prim::Constant) continue;
    ProbeNode pn;
    pn.op = node->kind().toQualString();
    pn.location = location_of(node);
    const auto& resolution = session.resolver.resolve(node);
    if (resolution.symbolic) {
      pn.pack = session.resolver.pack_of(resolution.symbolic);
      std::string file = session.resolver.pack_file_of(resolution.symbolic);
      pn.symbolic = resolution.symbolic->op + " since opset " + std::to_string(resolution.symbolic->since_opset) +
                    (file.empty() ? "" : " (" + file + ")");
    } else {
      pn.pack = "fallback";
      pn.symbolic = "--operator-export-type fallback node";
    }
    for (auto* v : node->inputs())
      if (is_tensor(v)) pn.inputs.push_back(value_index(v));
    for (auto* v : node->outputs())
      if (is_tensor(v)) pn.outputs.push_back(value_index(v));
    node_index.emplace(node, out->nodes_.size());
    out->nodes_.push_back(std::move(pn));
  }
  // Assembly renames the values that become graph outputs: remember each value by its producer.
  std::unordered_map<std::string, std::pair<std::string, int>> producer_of;
  for (const auto& n : session.graph.main().node())
    for (int k = 0; k < n.output_size(); ++k) producer_of[n.output(k)] = {n.name(), k};

  st.conv = assemble(session);
  std::map<std::pair<std::string, int>, std::string> renamed;
  for (const auto& n : st.conv.model.graph().node()) {
    for (int k = 0; k < n.output_size(); ++k) renamed[{n.name(), k}] = n.output(k);
    auto origin = st.conv.provenance.find(n.name());
    if (origin == st.conv.provenance.end()) continue;
    auto it = node_index.find(origin->second.torch_node);
    if (it != node_index.end()) out->nodes_[it->second].onnx_nodes.push_back(n.name());
  }
  for (auto& pv : out->values_) {
    auto p = producer_of.find(pv.onnx);
    if (p == producer_of.end()) continue;
    auto r = renamed.find(p->second);
    if (r != renamed.end()) pv.onnx = r->second;
  }
  finish_conversion(st.conv, st.options);
  return out;
}

std::vector<std::string> Conversion::input_names() const {
  std::unordered_set<std::string> streamed;
  for (const auto& s : state_->conv.streamed) streamed.insert(s.name);
  std::vector<std::string> names;
  for (const auto& in : state_->conv.model.graph().input())
    if (!streamed.count(in.name())) names.push_back(in.name());
  return names;
}

std::vector<std::string> Conversion::output_names() const {
  std::vector<std::string> names;
  for (const auto& o : state_->conv.model.graph().output()) names.push_back(o.name());
  return names;
}

namespace {

// The element type of an ONNX value as shape inference found it (0 if unknown).
int32_t inferred_dtype(const onnx::GraphProto& g, const std::string& name) {
  for (const auto* list : {&g.value_info(), &g.input(), &g.output()})
    for (const auto& vi : *list)
      if (vi.name() == name && vi.type().has_tensor_type()) return vi.type().tensor_type().elem_type();
  return 0;
}

const onnx::ValueInfoProto* inferred_info(const onnx::GraphProto& g, const std::string& name) {
  for (const auto* list : {&g.value_info(), &g.input(), &g.output()})
    for (const auto& vi : *list)
      if (vi.name() == name) return &vi;
  return nullptr;
}

}  // namespace

void Conversion::write(const std::string& path, const std::vector<std::string>& extra_outputs) const {
  onnx::ModelProto model = state_->conv.model;  // the skeleton: large weights stay in `streamed`
  std::vector<StreamedTensor> streamed = state_->conv.streamed;
  auto* g = model.mutable_graph();
  std::unordered_set<std::string> present;
  for (const auto& o : g->output()) present.insert(o.name());
  std::unordered_map<std::string, int32_t> dtype_of;
  for (size_t i = 0; i < values_.size(); ++i) dtype_of[values_[i].onnx] = state_->dtypes[i];
  for (const auto& name : extra_outputs) {
    if (!present.insert(name).second) continue;
    auto* o = g->add_output();
    o->set_name(name);
    // The element type only: a probe's shape is whatever the runtime computes.
    int32_t dtype = inferred_dtype(*g, name);
    if (!dtype) dtype = dtype_of[name];
    if (dtype) o->mutable_type()->mutable_tensor_type()->set_elem_type(dtype);
  }
  write_model(model, streamed, path, state_->options.external_data, {});
}

std::map<size_t, at::Tensor> Conversion::record(const std::vector<at::Tensor>& inputs) const {
  const auto& orig = state_->prepared.graph;
  auto g = orig->copy();
  // Top-level nodes keep their order in the copy: map each original value to its copy.
  std::unordered_map<const torch::jit::Value*, torch::jit::Value*> copy_of;
  for (size_t i = 0; i < orig->inputs().size(); ++i) copy_of[orig->inputs()[i]] = g->inputs()[i];
  auto o = orig->nodes().begin();
  auto c = g->nodes().begin();
  for (; o != orig->nodes().end() && c != g->nodes().end(); ++o, ++c)
    for (size_t k = 0; k < o->outputs().size(); ++k) copy_of[o->outputs()[k]] = c->outputs()[k];
  const size_t first_extra = g->outputs().size();
  for (const auto* v : state_->torch_values) g->registerOutput(copy_of.at(v));
  torch::jit::Stack stack;
  if (inputs.size() != orig->inputs().size())
    throw ExportError("the converted graph takes " + std::to_string(orig->inputs().size()) + " input(s), " +
                      std::to_string(inputs.size()) + " given");
  for (const auto& t : inputs) stack.emplace_back(t);
  try {
    c10::InferenceMode guard;
    torch::jit::Code code(g, "forward");
    torch::jit::InterpreterState state(code);
    state.run(stack);
  } catch (const std::exception& e) {
    throw ExportError("running the converted TorchScript graph failed: " + error_reason(e.what()), e.what());
  }
  std::map<size_t, at::Tensor> out;
  if (stack.size() < first_extra + values_.size()) throw ExportError("internal: recording run returned too few values");
  const size_t base = stack.size() - values_.size();
  for (size_t i = 0; i < values_.size(); ++i) {
    const auto& iv = stack[base + i];
    if (iv.isTensor() && iv.toTensor().defined()) out[i] = iv.toTensor();
  }
  return out;
}

std::string Conversion::subgraph(size_t k, const std::string& path) const {
  const ProbeNode& pn = nodes_.at(k);
  const onnx::GraphProto& main = state_->conv.model.graph();
  std::unordered_set<std::string> mine(pn.onnx_nodes.begin(), pn.onnx_nodes.end());
  std::unordered_map<std::string, const onnx::TensorProto*> small;
  for (const auto& t : main.initializer()) small[t.name()] = &t;
  std::unordered_map<std::string, const StreamedTensor*> large;
  for (const auto& s : state_->conv.streamed) large[s.name] = &s;
  std::unordered_map<std::string, size_t> input_of;  // ONNX name -> probe value (the node's inputs)
  for (size_t v : pn.inputs)
    if (!values_[v].onnx.empty()) input_of.emplace(values_[v].onnx, v);

  onnx::ModelProto model;
  model.set_ir_version(state_->conv.model.ir_version());
  model.set_producer_name("torch2onnx verify --repro");
  *model.mutable_opset_import() = state_->conv.model.opset_import();
  auto* g = model.mutable_graph();
  g->set_name("repro");
  std::unordered_set<std::string> produced, used_inputs, used_init;
  std::vector<StreamedTensor> streamed;
  std::vector<std::string> graph_inputs;
  for (const auto& n : main.node()) {
    if (!mine.count(n.name())) continue;
    for (const auto& a : n.attribute())
      if (a.has_g() || a.graphs_size()) return "";  // a subgraph may read any outer value
    for (const auto& in : n.input()) {
      if (in.empty() || produced.count(in)) continue;
      if (input_of.count(in)) {
        if (used_inputs.insert(in).second) graph_inputs.push_back(in);
      } else if (small.count(in)) {
        if (used_init.insert(in).second) *g->add_initializer() = *small[in];
      } else if (large.count(in)) {
        if (used_init.insert(in).second) streamed.push_back(*large[in]);
      } else {
        return "";  // reads a value made by another TorchScript node's helper nodes
      }
    }
    *g->add_node() = n;
    for (const auto& o : n.output()) produced.insert(o);
  }
  if (g->node_size() == 0) return "";
  for (const auto& name : graph_inputs) {
    auto* vi = g->add_input();
    if (const auto* info = inferred_info(main, name)) *vi = *info;
    vi->set_name(name);
    if (!vi->type().has_tensor_type())
      vi->mutable_type()->mutable_tensor_type()->set_elem_type(state_->dtypes[input_of[name]]);
  }
  for (size_t v : pn.outputs) {
    const auto& name = values_[v].onnx;
    if (name.empty() || !produced.count(name)) return "";
    auto* vi = g->add_output();
    vi->set_name(name);
    int32_t dtype = inferred_dtype(main, name);
    if (!dtype) dtype = state_->dtypes[v];
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(dtype);
  }
  write_model(model, streamed, path, false, {});
  std::string order;
  for (const auto& name : graph_inputs) order += (order.empty() ? "" : ",") + name;
  return order.empty() ? "-" : order;
}

struct TorchScriptModel::State {
  torch::jit::Module module;
  bool writes_state = false;  // forward() may change the module: each run gets a fresh copy
};

namespace {

// Whether forward() (calls inlined) may change module state: a prim::SetAttr, or an in-place write
// into a value reached from an attribute read (followed back a few steps: views such as self.b[0]).
// A false positive only costs a copy of the module per run.
bool forward_writes_state(const torch::jit::Module& module) {
  auto graph = module.get_method("forward").graph()->copy();
  torch::jit::Inline(*graph);
  std::function<bool(torch::jit::Block*)> scan = [&](torch::jit::Block* block) {
    for (torch::jit::Node* n : block->nodes()) {
      for (auto* b : n->blocks())
        if (scan(b)) return true;
      if (n->kind() == c10::prim::SetAttr) return true;
      const c10::FunctionSchema* schema = n->maybeSchema();
      if (!schema) continue;
      for (size_t i = 0; i < n->inputs().size() && i < schema->arguments().size(); ++i) {
        const auto* alias = schema->arguments()[i].alias_info();
        if (!alias || !alias->isWrite()) continue;
        torch::jit::Value* v = n->input(i);
        for (int step = 0; step < 8 && v->node()->kind() != c10::prim::GetAttr && !v->node()->inputs().empty(); ++step)
          v = v->node()->input(0);
        if (v->node()->kind() == c10::prim::GetAttr) return true;
      }
    }
    return false;
  };
  return scan(graph->block());
}

}  // namespace

TorchScriptModel::TorchScriptModel(const std::string& model_path, const ExportOptions& options,
                                   const t2o::registry::Registry& registry)
    : state_(std::make_unique<State>()), path_(model_path) {
  load_kernel_libraries(options.kernel_libraries, options.default_kernel_libraries, options.warn);
  declare_custom_ops(registry, options.warn);
  if (is_exported_program_file(model_path)) {
    ExportOptions quiet = options;
    quiet.warn = nullptr;  // the export says them
    state_->module = open_exported_program(model_path, quiet).module;
  } else {
    state_->module = load_torchscript(model_path, false);  // eager weights: verify runs the module again
  }
  state_->module.eval();
  // As the ONNX model computes one call on the saved state (prepare/state_in_call.cpp), every run of
  // a model that changes its state starts from the saved state, not from the previous run's.
  if (state_->module.find_method("forward")) state_->writes_state = forward_writes_state(state_->module);
}

TorchScriptModel::~TorchScriptModel() = default;

std::vector<at::Tensor> TorchScriptModel::run(const std::vector<c10::IValue>& args) const {
  c10::IValue result;
  try {
    c10::InferenceMode guard;
    result = state_->writes_state ? state_->module.deepcopy().forward(args) : state_->module.forward(args);
  } catch (const std::exception& e) {
    throw ExportError("running " + path_ + " in libtorch failed: " + error_reason(e.what()), e.what());
  }
  std::vector<at::Tensor> out;
  std::function<void(const c10::IValue&)> flatten = [&](const c10::IValue& v) {
    if (v.isTensor()) out.push_back(v.toTensor());
    else if (v.isTuple()) for (const auto& e : v.toTupleRef().elements()) flatten(e);
    else if (v.isList()) for (const auto& e : v.toListRef()) flatten(e);
    else if (v.isInt()) out.push_back(at::scalar_tensor(v.toInt(), at::kLong));
    else if (v.isDouble()) out.push_back(at::scalar_tensor(v.toDouble(), at::kFloat));
    else if (v.isBool()) out.push_back(at::scalar_tensor(v.toBool(), at::kBool));
    else throw ExportError("the model returns a " + v.tagKind() + ", which verify cannot compare");
  };
  flatten(result);
  return out;
}

}  // namespace t2o::core
