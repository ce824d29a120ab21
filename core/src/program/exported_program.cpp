#include "program/exported_program.hpp"

#include "program/program_state.hpp"
#include "program/pt2_archive.hpp"
#include "program/symbolic_sizes.hpp"
#include "torch2onnx/core/dtype_table.hpp"

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/normalize_ops.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <set>

namespace t2o::core::program {

namespace {

using torch::jit::Value;

constexpr int64_t kSchemaMajor = 8;

// Whether a node writes `v` or a view of it (`self.cache[:, :n] = x`: slice, then copy_ into the
// slice), by the ops' schemas: an argument marked written (Tensor(a!)), views followed through the
// returns that share the argument's alias set. Exact where libtorch's AliasDb is not: it takes every
// attribute of one module as possibly aliasing every other.
bool written_in_place(Value* v) {
  std::vector<Value*> todo = {v};
  std::set<Value*> seen = {v};
  while (!todo.empty()) {
    Value* cur = todo.back();
    todo.pop_back();
    for (const auto& use : cur->uses()) {
      const c10::FunctionSchema* schema = use.user->maybeSchema();
      if (!schema || use.offset >= schema->arguments().size()) continue;
      const c10::AliasInfo* in = schema->arguments()[use.offset].alias_info();
      if (!in) continue;
      if (in->isWrite()) return true;
      for (size_t k = 0; k < schema->returns().size() && k < use.user->outputs().size(); ++k) {
        const c10::AliasInfo* ret = schema->returns()[k].alias_info();
        if (ret && ret->beforeSets() == in->beforeSets() && seen.insert(use.user->output(k)).second)
          todo.push_back(use.user->output(k));
      }
    }
  }
  return false;
}

// The module that owns the program's state: a submodule per state-dict prefix, each tensor an
// attribute (parameter or buffer) of the submodule its path names.
class StateModule {
 public:
  // root_type: the exported module's class ("__main__.Encoder"), which the root module's class is
  // named after (TorchScript's spelling, __torch__.X) as a scripted model's is; "" for none known.
  explicit StateModule(const std::string& root_type)
      : cu_(std::make_shared<torch::jit::CompilationUnit>()),
        root_(root_type.empty() ? make("ExportedProgram") : make_named("__torch__." + root_type)) {}

  torch::jit::Module& root() { return root_; }
  std::shared_ptr<torch::jit::CompilationUnit> unit() const { return cu_; }

  void add(const std::string& fqn, const at::Tensor& t, bool is_parameter, const JsonAt& where) {
    // The same state read through two placeholders (2.6 lifts a scan's parameters a second time): one
    // attribute, both placeholders read it.
    if (auto seen = added_.find(fqn); seen != added_.end()) {
      if (seen->second != t.unsafeGetTensorImpl()) where.fail("'" + fqn + "' is named twice in the program's state");
      return;
    }
    added_.emplace(fqn, t.unsafeGetTensorImpl());
    auto parts = split(fqn, where);
    torch::jit::Module m = root_;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      if (m.hasattr(parts[i])) {
        c10::IValue sub = m.attr(parts[i]);
        if (!sub.isObject()) where.fail("'" + fqn + "': '" + parts[i] + "' is both a tensor and a module");
        m = torch::jit::Module(sub.toObject());
        continue;
      }
      torch::jit::Module sub = make("m_" + std::to_string(++count_));
      m.register_module(parts[i], sub);
      m = sub;
    }
    if (m.hasattr(parts.back())) where.fail("'" + fqn + "' is named twice in the program's state");
    m.register_parameter(parts.back(), t, /*is_buffer=*/!is_parameter);
  }

  // self.<fqn> in `graph`, sharing the GetAttr chains already made.
  Value* read(torch::jit::Graph& graph, Value* self, const std::string& fqn, const JsonAt& where) {
    auto it = reads_.find(fqn);
    if (it != reads_.end()) return it->second;
    auto parts = split(fqn, where);
    Value* v = self;
    std::string prefix;
    for (const auto& p : parts) {
      prefix += (prefix.empty() ? "" : ".") + p;
      auto cached = reads_.find(prefix);
      if (cached != reads_.end()) {
        v = cached->second;
        continue;
      }
      v = graph.insertGetAttr(v, p);
      reads_[prefix] = v;
    }
    return v;
  }

 private:
  std::unordered_map<std::string, const c10::TensorImpl*> added_;  // fqn -> the tensor registered under it

  torch::jit::Module make(const std::string& name) { return make_named("__torch__.torch2onnx.program." + name); }
  torch::jit::Module make_named(const std::string& qualified) {
    torch::jit::Module m(c10::QualifiedName(qualified), cu_, /*shouldMangle=*/true);
    m.register_attribute("training", c10::BoolType::get(), false);
    return m;
  }
  static std::vector<std::string> split(const std::string& fqn, const JsonAt& where) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
      size_t dot = fqn.find('.', start);
      parts.push_back(fqn.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (parts.back().empty()) where.fail("'" + fqn + "' is not a state-dict name");
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    return parts;
  }

  std::shared_ptr<torch::jit::CompilationUnit> cu_;
  torch::jit::Module root_;
  std::map<std::string, Value*> reads_;
  int count_ = 0;
};

nlohmann::json parse_json(const MemberBytes& bytes, const std::string& file) {
  return parse_program_json(bytes.data, bytes.size, file);
}

// The tensor leaves of the sample inputs ((args...), {kwargs}), depth first, as pytree flattens them.
void flatten_sample(const c10::IValue& v, std::vector<c10::IValue>& out) {
  if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) flatten_sample(e, out);
  } else if (v.isList()) {
    for (const auto& e : v.toListRef()) flatten_sample(e, out);
  } else if (v.isGenericDict()) {
    for (const auto& item : v.toGenericDict()) flatten_sample(item.value(), out);
  } else {
    out.push_back(v);
  }
}

std::string spec_text(const std::string& dtype, const std::vector<int64_t>& dims) {
  std::string s = dtype + "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// The path of each leaf of the program's input pytree, in flattening order, as the TorchScript front
// end names nested arguments: forward()'s argument name, then ".i" per tuple/list element and ".key"
// per dict entry ("extra.bias", "inputs.pair.1"); keyword arguments by their key. Empty when the
// program has no in_spec this understands (the placeholder names are used then).
std::vector<std::string> pytree_input_names(const JsonAt& graph_module) {
  std::vector<std::string> out;
  try {
    auto calls = graph_module.opt("module_call_graph");
    if (!calls || calls->size() == 0) return {};
    auto sig = calls->at(size_t{0}).opt("signature");
    if (!sig || !sig->has("in_spec") || !sig->has("forward_arg_names")) return {};
    std::vector<std::string> arg_names;
    for (const auto& n : sig->at("forward_arg_names").items()) arg_names.push_back(n.str());
    const nlohmann::json spec = nlohmann::json::parse(sig->at("in_spec").str());
    if (!spec.is_array() || spec.size() != 2) return {};
    std::function<bool(const nlohmann::json&, const std::string&)> walk = [&](const nlohmann::json& node,
                                                                              const std::string& path) {
      if (!node.is_object()) return false;
      const auto& children = node.value("children_spec", nlohmann::json::array());
      if (node["type"].is_null() || children.empty()) {
        if (node["type"].is_null()) out.push_back(path);
        return true;
      }
      std::vector<std::string> keys;
      const auto& context = node["context"];
      if (context.is_string() && context.get<std::string>() != "null") {
        const auto parsed = nlohmann::json::parse(context.get<std::string>(), nullptr, false);
        if (parsed.is_array())
          for (const auto& k : parsed) keys.push_back(k.is_string() ? k.get<std::string>() : k.dump());
      }
      for (size_t i = 0; i < children.size(); ++i) {
        const std::string part = i < keys.size() ? keys[i] : std::to_string(i);
        if (!walk(children[i], path.empty() ? part : path + "." + part)) return false;
      }
      return true;
    };
    // The root: (args tuple, kwargs dict); args named by forward()'s argument names, kwargs by key.
    const auto& root = spec[1];
    const auto& parts = root.value("children_spec", nlohmann::json::array());
    if (parts.size() != 2) return {};
    const auto& args = parts[0].value("children_spec", nlohmann::json::array());
    if (args.size() > arg_names.size()) return {};
    for (size_t i = 0; i < args.size(); ++i)
      if (!walk(args[i], arg_names[i])) return {};
    if (!walk(parts[1], "")) return {};
  } catch (const std::exception&) {
    return {};
  }
  return out;
}

}  // namespace

LoadedProgram load_exported_program(const std::string& path, const std::string& model_name) {
  Pt2Archive archive(path);
  const std::string model = archive.choose_model(model_name);
  const std::string member =
      archive.layout() == Pt2Layout::Flat ? "serialized_exported_program.json" : "models/" + model + ".json";
  const std::string file = path + ": " + member;
  const nlohmann::json j = parse_json(archive.read(member), file);
  JsonAt program(j, file, "");

  // Schema 8 with any minor: fields are only added within a major version.
  const auto version = program.at("schema_version");
  const int64_t major = version.at("major").integer();
  const int64_t minor = version.has("minor") ? version.at("minor").integer() : 0;
  if (major != kSchemaMajor)
    throw ExportError(file + ": written with export schema " + std::to_string(major) + "." + std::to_string(minor) +
                      "; torch2onnx reads schema " + std::to_string(kSchemaMajor) +
                      ".x (PyTorch 2.6 writes 8.2, PyTorch 2.14 writes 8.20)");
  LoadedProgram out;
  const std::string torch_version = program.has("torch_version") ? program.at("torch_version").str() : "?";
  out.writer = archive.describe() + ", PyTorch " + torch_version + ", schema " + std::to_string(major) + "." +
               std::to_string(minor);
  out.label = path + " (" + out.writer + ")";

  const auto graph_module = program.at("graph_module");
  const auto graph_json = graph_module.at("graph");
  const auto signature = graph_module.at("signature");
  const auto input_specs = signature.at("input_specs").items();
  const auto output_specs = signature.at("output_specs").items();
  const auto graph_inputs = graph_json.at("inputs").items();
  const auto graph_outputs = graph_json.at("outputs").items();
  if (input_specs.size() != graph_inputs.size())
    signature.at("input_specs").fail(std::to_string(input_specs.size()) + " input specs for " +
                                     std::to_string(graph_inputs.size()) + " graph inputs");
  if (output_specs.size() != graph_outputs.size())
    signature.at("output_specs").fail(std::to_string(output_specs.size()) + " output specs for " +
                                      std::to_string(graph_outputs.size()) + " graph outputs");

  // Range constraints: symbol -> [min, max] (max may be "Infinity" or a huge integer).
  std::map<std::string, SymbolRange> ranges;
  if (auto rc = program.opt("range_constraints"))
    for (const auto& member : rc->members()) {  // no structured binding: clang < 16 cannot capture one
      const std::string& symbol = member.first;
      const JsonAt& r = member.second;
      SymbolRange range;
      auto bound = [&](const char* key) -> std::optional<int64_t> {
        auto b = r.opt(key);
        if (!b) return std::nullopt;
        if (b->raw().is_string()) return std::nullopt;  // "Infinity": unbounded
        double x = b->number();
        if (x > 9e18 || x < -9e18) return std::nullopt;
        return (int64_t)x;
      };
      range.min = bound("min_val");
      range.max = bound("max_val");
      ranges[symbol] = range;
    }

  // State: parameters, buffers and constants by name.
  std::map<std::string, at::Tensor> state = read_program_state(archive, model);
  StateModule holder(root_module_type(graph_json.at("nodes").raw()));
  auto graph = std::make_shared<torch::jit::Graph>();
  Value* self = graph->addInput("self");
  self->setType(holder.root().type());
  ProgramGraphBuilder builder(*graph, file, holder.unit());
  const auto tensor_values = graph_json.at("tensor_values");

  struct UserInput {
    std::string name;
    JsonAt meta;
    size_t leaf = 0;  // its place among all user inputs (the pytree's leaves)
    Value* value = nullptr;
  };
  size_t user_leaves = 0;
  std::vector<UserInput> user_inputs;
  std::vector<std::pair<std::string, JsonAt>> state_reads;  // (placeholder, fqn spec) in order
  for (size_t i = 0; i < input_specs.size(); ++i) {
    auto [kind, spec] = input_specs[i].union_member();
    if (kind == "user_input") {
      ++user_leaves;
      auto arg = spec.at("arg");
      auto [akind, abody] = arg.union_member();
      if (akind == "as_tensor") {
        const std::string name = abody.at("name").str();
        Value* v = graph->addInput(name);
        v->setType(c10::TensorType::get());
        builder.bind_tensor(name, v);
        user_inputs.push_back({name, tensor_values.at(name.c_str()), user_leaves - 1, v});
      } else if (akind == "as_sym_int" || akind == "as_sym_float" || akind == "as_sym_bool") {
        arg.fail("a user input that is a symbolic " + akind.substr(7) +
                 " (a Python number marked dynamic) cannot be a graph input yet; export it as a 0-d tensor");
      } else if (akind == "as_none" || akind == "as_int" || akind == "as_float" || akind == "as_bool" ||
                 akind == "as_string") {
        // A constant the program was specialized to: nothing to feed at run time.
      } else {
        arg.fail("a user input of kind '" + akind + "' cannot be converted");
      }
    } else if (kind == "parameter" || kind == "buffer" || kind == "tensor_constant") {
      const char* key = kind == "parameter" ? "parameter_name" : kind == "buffer" ? "buffer_name" : "tensor_constant_name";
      const std::string fqn = spec.at(key).str();
      const std::string placeholder = spec.at("arg").at("name").str();
      auto it = state.find(fqn);
      if (it == state.end())
        spec.at(key).fail("the program reads '" + fqn + "', which the archive's " +
                          (kind == "parameter" ? "weights" : kind == "buffer" ? "buffers" : "constants") + " lack");
      holder.add(fqn, it->second, kind == "parameter", spec.at(key));
      state_reads.emplace_back(placeholder, spec.at(key));
    } else if (kind == "constant_input") {
      // Baked into the program's nodes by name: a constant value.
      const std::string name = spec.at("name").str();
      Value* v = builder.value_of(spec.at("value"));
      builder.bind_symbol(name, v);
    } else if (kind == "custom_obj") {
      spec.fail("a TorchBind object (" + spec.at("custom_obj_name").str() + ") cannot be converted");
    } else if (kind == "token") {
      spec.fail("an effect token (an op with side effects, e.g. a print or a custom op marked effectful) cannot be "
                "converted");
    } else {
      input_specs[i].fail("an input spec of kind '" + kind + "' cannot be converted");
    }
  }
  std::vector<std::pair<std::string, Value*>> state_values;  // (fqn, its read) in the input specs' order
  for (const auto& [placeholder, where] : state_reads) {
    state_values.emplace_back(where.str(), holder.read(*graph, self, where.str(), where));
    builder.bind_tensor(placeholder, state_values.back().second);
  }

  builder.add_nodes(graph_json.at("nodes"));
  if (!builder.unknown().empty()) {
    auto uses = builder.unknown();
    std::stable_sort(uses.begin(), uses.end(), [](const CustomOpUse& a, const CustomOpUse& b) { return a.count > b.count; });
    throw UnknownProgramOpsError(path, std::move(uses));
  }

  // Outputs: the user's; a mutated buffer's or input's new value is state the ONNX model cannot keep.
  std::vector<Value*> results, state_results;
  std::vector<std::string> user_output_tensors;  // the program's value name of each user output ("" if none)
  std::vector<std::string> state_names;
  for (size_t i = 0; i < output_specs.size(); ++i) {
    auto [kind, spec] = output_specs[i].union_member();
    if (kind == "user_output") {
      Value* v = builder.value_of(graph_outputs[i]);
      // A Python number the program returns (a size): a 0-d tensor of it, as torch.onnx gives it.
      const auto k = v->type()->kind();
      if (k == c10::TypeKind::IntType || k == c10::TypeKind::FloatType || k == c10::TypeKind::BoolType)
        v = graph->insert(c10::Symbol::fromQualString("prim::NumToTensor"), {v});
      results.push_back(v);
      std::string name;
      auto [okind, obody] = graph_outputs[i].union_member();
      if (okind == "as_tensor") name = obody.at("name").str();
      out.output_names.push_back(name);
      user_output_tensors.push_back(name);
    } else if (kind == "buffer_mutation" || kind == "parameter_mutation" || kind == "user_input_mutation") {
      // State the call writes: its new value becomes an extra output after the user's, named after
      // the buffer or input with ".updated" ("count.updated", "cache.updated": the plain name is the
      // initializer's or the input's), so a caller can feed it back; the model itself keeps no state.
      const bool input = kind == "user_input_mutation";
      const char* key = kind == "buffer_mutation" ? "buffer_name" : input ? "user_input_name" : "parameter_name";
      const std::string what = spec.at(key).str();
      state_results.push_back(builder.value_of(graph_outputs[i]));
      state_names.push_back(what + ".updated");
      out.warnings.push_back("the program writes " + std::string(input ? "its input '" : "'") + what +
                             "' during the call: its new value is the extra output '" + state_names.back() +
                             "' (the ONNX model keeps no state)");
    } else if (kind == "loss_output" || kind == "gradient_to_parameter" || kind == "gradient_to_user_input") {
      output_specs[i].fail("a training program's " + kind + " cannot be converted (export an inference program)");
    } else if (kind == "token") {
      output_specs[i].fail("an effect token output cannot be converted");
    } else {
      output_specs[i].fail("an output spec of kind '" + kind + "' cannot be converted");
    }
  }
  // A training-IR program writes state in place (`self.count.add_(1)`, `self.cache[:, :n] = x`,
  // `acc.mul_(2)`) where the decomposed program returns the new values (the mutation specs above):
  // the same extra outputs either way, as torch.onnx gives them (it decomposes a program first).
  if (state_results.empty()) {
    auto written = [&](Value* v, const std::string& what, bool input) {
      if (!written_in_place(v)) return;
      state_results.push_back(v);
      state_names.push_back(what + ".updated");
      out.warnings.push_back("the program writes " + std::string(input ? "its input '" : "'") + what +
                             "' in place during the call: its new value is the extra output '" +
                             state_names.back() + "' (the ONNX model keeps no state)");
    };
    std::set<Value*> seen;  // state read through two placeholders is one output
    for (const auto& [fqn, v] : state_values)
      if (seen.insert(v).second) written(v, fqn, false);
    for (const auto& u : user_inputs) written(u.value, u.name, true);
  }
  results.insert(results.end(), state_results.begin(), state_results.end());
  out.output_names.insert(out.output_names.end(), state_names.begin(), state_names.end());
  if (results.empty()) signature.at("output_specs").fail("the program has no output");
  if (results.size() == 1) {
    graph->registerOutput(results[0]);
  } else {
    graph->registerOutput(graph->insertNode(graph->createTuple(results))->output());
  }
  // An input returned as it is: its output needs a name of its own.
  for (auto& name : out.output_names)
    for (const auto& in : user_inputs)
      if (name == in.name) name += "_out";
  // Two outputs of one name (the same value returned twice) keep the default names.
  std::set<std::string> seen;
  bool usable = true;
  for (const auto& n : out.output_names) usable = usable && !n.empty() && seen.insert(n).second;
  if (!usable) out.output_names.clear();

  // Ops under their other names (swapaxes, absolute, arccos, greater, ...; rsub) as TorchScript's
  // compiler normalizes a script's, so a program reaches the packs with the names they convert.
  torch::jit::NormalizeOps(graph);

  auto& root = holder.root();
  auto fn = holder.unit()->create_function(c10::QualifiedName(*root.type()->name(), "forward"), graph);
  root.type()->addMethod(fn);
  out.module = root;

  // The signature: dtypes and example sizes, symbols as named dynamic axes.
  std::vector<c10::IValue> samples;
  if (auto sample = read_sample_inputs(archive, model)) flatten_sample(*sample, samples);
  std::vector<at::Tensor> sample_tensors;
  for (const auto& s : samples)
    if (s.isTensor()) sample_tensors.push_back(s.toTensor());
  const bool samples_fit = sample_tensors.size() == user_inputs.size();
  if (!samples.empty() && !samples_fit)
    out.warnings.push_back("the program's sample inputs hold " + std::to_string(sample_tensors.size()) +
                           " tensors for its " + std::to_string(user_inputs.size()) +
                           " tensor inputs: not used; the example runs make up values");
  // Nested inputs are named by their path in the pytree (extra.bias), as the TorchScript front end
  // names the leaves of nested arguments; the dynamic axes below follow.
  const auto leaf_names = pytree_input_names(graph_module);
  if (leaf_names.size() == user_leaves) {
    std::set<std::string> taken;
    bool unique = true;
    for (const auto& u : user_inputs) unique = unique && taken.insert(leaf_names[u.leaf]).second;
    if (unique)
      for (auto& u : user_inputs) u.name = leaf_names[u.leaf];
  }
  SymbolicSizes sizes;
  for (size_t i = 0; i < user_inputs.size(); ++i) {
    const auto& meta = user_inputs[i].meta;
    const c10::ScalarType st = scalar_type_of(meta.at("dtype"));
    auto dims_json = meta.at("sizes").items();
    std::vector<int64_t> dims;
    DynamicAxes axes;
    axes.name = user_inputs[i].name;
    for (size_t d = 0; d < dims_json.size(); ++d) {
      auto [key, v] = dims_json[d].union_member();
      if (key == "as_int") {
        dims.push_back(v.integer());
        continue;
      }
      if (key != "as_expr") dims_json[d].fail("a size of kind '" + key + "'");
      std::optional<int64_t> hint;
      if (auto h = v.opt("hint")) {
        auto [hk, hv] = h->union_member();
        if (hk == "as_int") hint = hv.integer();
      }
      if (samples_fit && (int64_t)d < sample_tensors[i].dim()) hint = sample_tensors[i].size((int64_t)d);
      const std::string expr = v.at("expr_str").str();
      const std::string name = sizes.add_dim(expr, hint, ranges, dims_json[d]);
      dims.push_back(sizes.example_value(expr));
      axes.axes.emplace_back((int64_t)d, name);
    }
    InputSpec spec;
    spec.kind = InputSpec::Kind::Tensor;
    spec.dtype = dtype_name(st);
    spec.dims = dims;
    spec.text = spec_text(spec.dtype, dims);
    out.inputs.push_back(spec);
    out.input_names.push_back(user_inputs[i].name);
    if (!axes.axes.empty()) out.dynamic_axes.push_back(axes);
    if (samples_fit) {
      const at::Tensor& t = sample_tensors[i];
      if (t.scalar_type() != st || t.sizes().vec() != dims)
        throw ExportError(path + ": sample input '" + user_inputs[i].name + "' is " + dtype_name(t.scalar_type()) +
                          spec_text("", t.sizes().vec()) + " where the program expects " + spec.text);
      out.examples.emplace_back(path + " sample input '" + user_inputs[i].name + "'", t);
    }
  }
  // The second example run: every symbol at another size inside its range, derived dims evaluated.
  if (!out.dynamic_axes.empty()) {
    sizes.choose_other_values(out.warnings);
    for (size_t i = 0; i < user_inputs.size(); ++i) {
      InputSpec other = out.inputs[i];
      auto dims_json = user_inputs[i].meta.at("sizes").items();
      for (size_t d = 0; d < dims_json.size(); ++d) {
        auto [key, v] = dims_json[d].union_member();
        if (key == "as_expr") other.dims[d] = sizes.other_value(v.at("expr_str").str());
      }
      other.text = spec_text(other.dtype, other.dims);
      out.dynamic_inputs.push_back(other);
    }
    // An axis whose symbol cannot move inside its range is exported at its size (warned above).
    for (auto& axes : out.dynamic_axes) {
      size_t i = std::find(out.input_names.begin(), out.input_names.end(), axes.name) - out.input_names.begin();
      auto& kept = axes.axes;
      kept.erase(std::remove_if(kept.begin(), kept.end(),
                                [&](const auto& a) { return out.dynamic_inputs[i].dims[a.first] == out.inputs[i].dims[a.first]; }),
                 kept.end());
    }
    out.dynamic_axes.erase(std::remove_if(out.dynamic_axes.begin(), out.dynamic_axes.end(),
                                          [](const DynamicAxes& a) { return a.axes.empty(); }),
                           out.dynamic_axes.end());
    if (out.dynamic_axes.empty()) out.dynamic_inputs.clear();
  }
  // Output dims the program records as symbolic, under the names the inputs' dims use; the fixed ones.
  for (size_t k = 0; k < user_output_tensors.size(); ++k) {
    std::vector<int64_t> sizes;
    if (!user_output_tensors[k].empty() && tensor_values.has(user_output_tensors[k].c_str()))
      for (const auto& dim : tensor_values.at(user_output_tensors[k].c_str()).at("sizes").items()) {
        auto [key, v] = dim.union_member();
        sizes.push_back(key == "as_int" ? v.integer() : -1);
      }
    out.output_sizes.push_back(std::move(sizes));  // empty: not a tensor, or not recorded
  }
  if (!out.output_names.empty())
    for (size_t k = 0; k < user_output_tensors.size() && k < out.output_names.size(); ++k) {
      if (user_output_tensors[k].empty() || !tensor_values.has(user_output_tensors[k].c_str())) continue;
      DynamicAxes axes;
      axes.name = out.output_names[k];
      auto dims_json = tensor_values.at(user_output_tensors[k].c_str()).at("sizes").items();
      for (size_t d = 0; d < dims_json.size(); ++d) {
        auto [key, v] = dims_json[d].union_member();
        if (key != "as_expr") continue;
        const std::string name = sizes.name_of(v.at("expr_str").str());
        if (!name.empty()) axes.axes.emplace_back((int64_t)d, name);
      }
      if (!axes.axes.empty()) out.output_axes.push_back(axes);
    }
  for (const auto& s : sizes.symbols()) {
    auto it = ranges.find(s);
    if (it != ranges.end()) out.ranges[s] = it->second;
  }
  return out;
}

}  // namespace t2o::core::program
