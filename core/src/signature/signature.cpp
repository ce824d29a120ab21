// Binding --input specs to forward()'s arguments (tuples, lists, dicts, primitives, None), and the
// signature torch2onnx.save() stores inside a .pt.
#include "signature/signature.hpp"

#include "signature/default_dtype.hpp"
#include "torch2onnx/core/dtype_table.hpp"

#include <caffe2/serialize/inline_container.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

namespace t2o::core {

namespace {

using Kind = InputSpec::Kind;

std::string what_is(const InputSpec& spec) {
  switch (spec.kind) {
    case Kind::Tensor: return spec.dims.empty() ? "a 0-d tensor" : "a tensor";
    case Kind::Sequence: return "a tuple/list of " + std::to_string(spec.elements.size());
    case Kind::Dict: return "a dict";
    case Kind::None: return "None";
    case Kind::Int: return "an int constant";
    case Kind::Float: return "a float constant";
    case Kind::Bool: return "a bool constant";
    case Kind::Str: return "a str constant";
  }
  return "?";
}

bool is_integer_dtype(const std::string& dtype) {
  return dtype == "int64" || dtype == "int32" || dtype == "int16" || dtype == "int8" || dtype == "uint8";
}

class Binder {
 public:
  Binder(PreparedModel& model, torch::jit::Graph& graph) : model_(model), graph_(graph) {}

  // Binds argument `arg` (index among forward()'s arguments) whose graph input is at `pos_`.
  void bind_argument(size_t arg, const InputSpec& spec) {
    arg_name_ = model_.argument_names[arg];
    arg_type_ = model_.argument_types[arg];
    arg_spec_ = &spec;
    auto* original = graph_.inputs()[pos_];
    const c10::TypePtr& type = arg_type_;
    bool tensor_arg = type->kind() == c10::TypeKind::TensorType ||
                      (type->kind() == c10::TypeKind::OptionalType &&
                       type->expectRef<c10::OptionalType>().getElementType()->kind() == c10::TypeKind::TensorType);
    if (tensor_arg && spec.kind == Kind::Tensor) {  // stays the graph input it is
      names_.push_back(arg_name_);
      types_.push_back(type);
      specs_.push_back(spec);
      ++pos_;
      return;
    }
    auto* replacement = bind(spec, type, arg_name_);
    original->replaceAllUsesWith(replacement);
    graph_.eraseInput(pos_);
  }

  void bind_default(size_t arg) {
    auto* original = graph_.inputs()[pos_];
    torch::jit::WithInsertPoint guard(anchor_);
    original->replaceAllUsesWith(graph_.insertConstant(*model_.argument_defaults[arg]));
    graph_.eraseInput(pos_);
  }

  void finish() {
    model_.argument_names = names_;
    model_.argument_types = types_;
    model_.argument_defaults.assign(names_.size(), c10::nullopt);
    model_.input_specs = specs_;
  }

  std::vector<BoundDict> dicts;
  size_t pos_ = 1;  // graph input 0 is self
  torch::jit::Node* anchor_ = nullptr;  // constructs and constants go before it, in order

 private:
  [[noreturn]] void mismatch(const InputSpec& given, const c10::TypePtr& expected, const std::string& path,
                             const std::string& why) {
    std::string where = "--input " + arg_spec_->text + " for forward() argument '" + arg_name_ + "' of type " +
                        arg_type_->annotation_str();
    if (path != arg_name_) where += ": element " + path + " is " + expected->annotation_str() + ", " + given.text + " given";
    throw SignatureError(where + ": " + why);
  }

  torch::jit::Value* new_input(const InputSpec& spec, const std::string& path) {
    auto* v = graph_.insertInput(pos_++);
    v->setType(c10::TensorType::get());
    names_.push_back(path);
    types_.push_back(c10::TensorType::get());
    specs_.push_back(spec);
    return v;
  }

  torch::jit::Value* constant(const c10::IValue& value) {
    torch::jit::WithInsertPoint guard(anchor_);
    return graph_.insertConstant(value);
  }

  torch::jit::Value* insert(torch::jit::Node* node) {
    torch::jit::WithInsertPoint guard(anchor_);
    return graph_.insertNode(node)->output();
  }

  // A 0-d tensor graph input read as a number: `convert` is aten::Int, aten::Float or aten::Bool.
  torch::jit::Value* runtime_number(const InputSpec& spec, const std::string& path, const char* convert,
                                    const c10::TypePtr& type) {
    auto* input = new_input(spec, path);
    auto* node = graph_.create(c10::Symbol::fromQualString(convert), {input}, 1);
    node->output()->setType(type);
    return insert(node);
  }

  torch::jit::Value* bind(const InputSpec& spec, c10::TypePtr type, const std::string& path) {
    if (auto optional = type->cast<c10::OptionalType>()) {
      if (spec.kind == Kind::None) return constant(c10::IValue());
      type = optional->getElementType();
    }
    auto expect = [&](bool ok, const std::string& why) {
      if (!ok) mismatch(spec, type, path, why);
    };
    switch (type->kind()) {
      case c10::TypeKind::TensorType:
        if (spec.kind == Kind::None) mismatch(spec, type, path, "only an Optional argument can be None");
        expect(spec.kind == Kind::Tensor, "a tensor expected, e.g. float32[2,3]; " + what_is(spec) + " given");
        return new_input(spec, path);
      case c10::TypeKind::IntType:
        if (spec.kind == Kind::Int) return constant(spec.int_value);
        expect(spec.kind == Kind::Tensor && spec.dims.empty() && is_integer_dtype(spec.dtype),
               "int=N (a constant) or a 0-d integer tensor int64[] (a graph input) expected; " + what_is(spec) +
                   " given");
        return runtime_number(spec, path, "aten::Int", type);
      case c10::TypeKind::FloatType:
        if (spec.kind == Kind::Float) return constant(spec.float_value);
        expect(spec.kind == Kind::Tensor && spec.dims.empty() && (spec.dtype == "float32" || spec.dtype == "float64"),
               "float=X (a constant) or a 0-d float tensor float32[] (a graph input) expected; " + what_is(spec) +
                   " given");
        return runtime_number(spec, path, "aten::Float", type);
      case c10::TypeKind::BoolType:
        if (spec.kind == Kind::Bool) return constant(spec.bool_value);
        expect(spec.kind == Kind::Tensor && spec.dims.empty() && spec.dtype == "bool",
               "bool=true|false (a constant) or a 0-d bool tensor bool[] (a graph input) expected; " + what_is(spec) +
                   " given");
        return runtime_number(spec, path, "aten::Bool", type);
      case c10::TypeKind::StringType:
        expect(spec.kind == Kind::Str, "str=TEXT (a constant) expected; " + what_is(spec) + " given");
        return constant(c10::IValue(spec.str_value));
      case c10::TypeKind::NumberType:
        if (spec.kind == Kind::Int) return constant(spec.int_value);
        if (spec.kind == Kind::Float) return constant(spec.float_value);
        expect(spec.kind == Kind::Tensor && spec.dims.empty(),
               "int=N or float=X (a constant) or a 0-d tensor (a graph input) expected; " + what_is(spec) + " given");
        return runtime_number(spec, path, "aten::ScalarImplicit", type);
      case c10::TypeKind::TupleType: {
        const auto& elements = type->expectRef<c10::TupleType>().elements();
        expect(spec.kind == Kind::Sequence && spec.elements.size() == elements.size(),
               "a tuple of " + std::to_string(elements.size()) + " expected, e.g. (" + example_items(elements.size()) +
                   "); " + what_is(spec) + " given");
        std::vector<torch::jit::Value*> items;
        for (size_t i = 0; i < elements.size(); ++i)
          items.push_back(bind(spec.elements[i], elements[i], path + "." + std::to_string(i)));
        auto tuple = type->expect<c10::TupleType>();
        return insert(graph_.createTuple(items, tuple->schema() ? tuple : nullptr));  // a type only for NamedTuples
      }
      case c10::TypeKind::ListType: {
        auto element = type->expectRef<c10::ListType>().getElementType();
        expect(spec.kind == Kind::Sequence, "a list expected, e.g. (" + example_items(2) + "); " + what_is(spec) +
                                                " given");
        std::vector<torch::jit::Value*> items;
        for (size_t i = 0; i < spec.elements.size(); ++i)
          items.push_back(bind(spec.elements[i], element, path + "." + std::to_string(i)));
        return insert(graph_.createList(element, items));
      }
      case c10::TypeKind::DictType: {
        const auto& dict = type->expectRef<c10::DictType>();
        expect(dict.getKeyType()->kind() == c10::TypeKind::StringType,
               "only dicts with str keys can be given (as {KEY:SPEC,...})");
        expect(spec.kind == Kind::Dict, "a dict expected, e.g. {a:float32[2],b:int64[3]}; " + what_is(spec) + " given");
        BoundDict bound;
        bound.keys = spec.keys;
        bound.where = "forward() argument '" + arg_name_ + "' of type " + arg_type_->annotation_str() +
                      (path == arg_name_ ? "" : " (element " + path + ")");
        std::vector<torch::jit::Value*> keys;
        for (size_t i = 0; i < spec.elements.size(); ++i) {
          keys.push_back(constant(c10::IValue(spec.keys[i])));
          bound.values.push_back(bind(spec.elements[i], dict.getValueType(), path + "." + spec.keys[i]));
        }
        bound.dict = insert(graph_.createDict(dict.getKeyType(), dict.getValueType(), keys, bound.values));
        dicts.push_back(bound);
        return bound.dict;
      }
      default:
        mismatch(spec, type, path, "arguments of this type cannot be given (Tensor, tuples, lists, dicts with str "
                                   "keys, Optional, int, float, bool and str can)");
    }
  }

  static std::string example_items(size_t n) {
    std::string s;
    for (size_t i = 0; i < n && i < 3; ++i) s += (i ? "," : "") + std::string("TYPE[DIMS]");
    if (n > 3) s += ",...";
    return s;
  }

  PreparedModel& model_;
  torch::jit::Graph& graph_;
  std::string arg_name_;
  c10::TypePtr arg_type_;
  const InputSpec* arg_spec_ = nullptr;
  std::vector<std::string> names_;
  std::vector<c10::TypePtr> types_;
  std::vector<InputSpec> specs_;
};

}  // namespace

std::vector<BoundDict> bind_signature(PreparedModel& model, torch::jit::Graph& graph,
                                      const std::vector<InputSpec>& given) {
  const size_t n = model.argument_names.size();
  if (given.empty()) return {};  // check without --input; export says how to give them
  auto list_args = [&]() {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + model.argument_names[i] + ": " + model.argument_types[i]->annotation_str();
    return s;
  };
  std::string missing;
  for (size_t i = given.size(); i < n; ++i)
    if (!model.argument_defaults[i]) missing += (missing.empty() ? "'" : ", '") + model.argument_names[i] + "'";
  if (given.size() > n || !missing.empty())
    throw SignatureError("forward() takes " + std::to_string(n) + " argument(s) (" + list_args() + ") but " +
                         std::to_string(given.size()) + " --input given" +
                         (missing.empty() ? "" : " (without a default: " + missing + ")"));
  if (graph.inputs().size() != n + 1) throw ExportError("internal: forward()'s graph has another arity than its schema");
  Binder binder(model, graph);
  binder.anchor_ = *graph.block()->nodes().begin();
  for (size_t i = 0; i < n; ++i) {
    if (i < given.size()) binder.bind_argument(i, given[i]);
    else binder.bind_default(i);
  }
  binder.finish();
  return binder.dicts;
}

namespace {

// Index of `key` (a constant string) among the bound keys; keys.size() when absent; nullopt when
// the key is computed at run time.
std::optional<size_t> key_index(const BoundDict& bound, torch::jit::Value* key) {
  auto k = torch::jit::toIValue(key);
  if (!k || !k->isString()) return std::nullopt;
  auto it = std::find(bound.keys.begin(), bound.keys.end(), k->toStringRef());
  return (size_t)(it - bound.keys.begin());
}

void check_dict_reads(torch::jit::Block* block, const std::vector<BoundDict>& dicts) {
  for (auto* node : block->nodes()) {
    for (auto* b : node->blocks()) check_dict_reads(b, dicts);
    if (node->kind() != c10::Symbol::fromQualString("aten::__getitem__") || node->inputs().size() < 2) continue;
    for (const auto& bound : dicts) {
      if (node->input(0) != bound.dict) continue;
      auto i = key_index(bound, node->input(1));
      if (!i || *i < bound.keys.size()) continue;
      std::string given;
      for (const auto& k : bound.keys) given += (given.empty() ? "" : ", ") + k;
      throw SignatureError("forward() reads key '" + torch::jit::toIValue(node->input(1))->toStringRef() + "' of " +
                           bound.where + " but the --input dict gives " + (given.empty() ? "no keys" : "only " + given));
    }
  }
}

}  // namespace

void fold_dict_arguments(const std::vector<BoundDict>& dicts, torch::jit::Graph& graph, bool after_propagation) {
  if (dicts.empty()) return;
  if (after_propagation) return check_dict_reads(graph.block(), dicts);
  for (const auto& bound : dicts) {
    std::vector<torch::jit::Node*> users;
    for (const auto& use : bound.dict->uses()) users.push_back(use.user);
    for (auto* user : users) {
      if (user->inputs().empty() || user->input(0) != bound.dict) continue;
      std::string op = user->kind().toQualString();
      torch::jit::WithInsertPoint here(user);
      torch::jit::Value* result = nullptr;
      if (op == "aten::__contains__") {
        if (auto i = key_index(bound, user->input(1))) result = graph.insertConstant(*i < bound.keys.size());
      } else if (op == "aten::len") {
        result = graph.insertConstant((int64_t)bound.keys.size());
      } else if (op == "aten::keys") {
        c10::List<std::string> keys;
        for (const auto& k : bound.keys) keys.push_back(k);
        result = graph.insertConstant(keys);
      } else if (op == "aten::values") {
        auto element = user->output()->type()->expectRef<c10::ListType>().getElementType();
        result = graph.insertNode(graph.createList(element, bound.values))->output();
      } else if (op == "aten::__getitem__" || op == "aten::get") {
        auto i = key_index(bound, user->input(1));
        if (!i) continue;  // a key computed at run time: left for the packs, which refuse it
        if (*i < bound.keys.size()) result = bound.values[*i];
        else if (op == "aten::get")
          result = user->inputs().size() > 2 ? user->input(2) : graph.insertConstant(c10::IValue());
        // d[missing]: an error if it survives constant propagation (it may sit in a dead branch)
      }
      if (!result) continue;
      user->output()->replaceAllUsesWith(result);
      user->destroy();
    }
  }
}

// ---- the signature saved by torch2onnx.save() ----

std::string read_extra_file(const std::string& path, const std::string& name) {
  caffe2::serialize::PyTorchStreamReader reader(path);
  std::string record = "extra/" + name;
  if (!reader.hasRecord(record)) throw ExportError(path + ": no extra file " + name);
  auto [data, size] = reader.getRecord(record);
  return std::string(static_cast<const char*>(data.get()), size);
}

std::optional<SavedSignature> read_saved_signature(const std::string& path) {
  std::string text;
  try {
    caffe2::serialize::PyTorchStreamReader reader(path);
    std::string record = std::string("extra/") + kSignatureExtraFile;
    if (!reader.hasRecord(record)) return std::nullopt;
    auto [data, size] = reader.getRecord(record);
    text.assign(static_cast<const char*>(data.get()), size);
  } catch (const std::exception&) {
    return std::nullopt;  // the loader reports unreadable archives
  }
  auto bad = [&](const std::string& why) {
    return ExportError(path + ": the signature saved by torch2onnx.save (extra file " + kSignatureExtraFile +
                       ") is malformed: " + why);
  };
  SavedSignature saved;
  try {
    auto j = nlohmann::json::parse(text);
    if (j.value("version", 0) != 1) throw bad("unknown version");
    for (const auto& s : j.at("inputs")) saved.inputs.push_back(parse_input_spec(s.get<std::string>()));
    saved.input_names = j.value("input_names", std::vector<std::string>{});
    saved.output_names = j.value("output_names", std::vector<std::string>{});
    for (const auto& s : j.value("dynamic_axes", std::vector<std::string>{})) saved.dynamic_axes.push_back(parse_dynamic_axes(s));
    saved.example_files = j.value("example_inputs", std::vector<std::string>{});
    if (j.contains("example_quantization")) {  // null, or {"scale": s, "zero_point": z} per example file
      for (const auto& q : j.at("example_quantization")) {
        if (q.is_null()) saved.example_grids.emplace_back();
        else
          saved.example_grids.emplace_back(
              std::make_pair(q.at("scale").get<double>(), q.at("zero_point").get<int64_t>()));
      }
      if (saved.example_grids.size() != saved.example_files.size())
        throw bad("example_quantization has " + std::to_string(saved.example_grids.size()) + " entries for " +
                  std::to_string(saved.example_files.size()) + " example files");
    }
    if (j.contains("dequantized_io")) saved.dequantized_io = j.at("dequantized_io").get<bool>();
    if (j.contains("default_dtype")) saved.default_dtype = parse_default_dtype(j.at("default_dtype").get<std::string>());
    if (j.contains("training")) saved.training = parse_training_mode(j.at("training").get<std::string>());
    if (j.contains("do_constant_folding")) saved.do_constant_folding = j.at("do_constant_folding").get<bool>();
    if (j.contains("export_modules_as_functions")) {  // true, or the qualified names of module types
      const auto& f = j.at("export_modules_as_functions");
      saved.modules_as_functions = f.is_boolean() ? f.get<bool>() : true;
      if (!f.is_boolean()) saved.function_module_types = f.get<std::vector<std::string>>();
    }
  } catch (const ExportError& e) {
    if (std::string(e.what()).rfind(path, 0) == 0) throw;
    throw bad(e.what());
  } catch (const std::exception& e) {
    throw bad(first_line(e.what()));
  }
  return saved;
}

ExportOptions with_saved_signature(const ExportOptions& options, const SavedSignature& saved) {
  ExportOptions out = options;
  if (out.default_dtype.empty()) out.default_dtype = saved.default_dtype;
  if (!out.training) out.training = saved.training;
  if (!out.dequantized_io && saved.dequantized_io) out.dequantized_io = *saved.dequantized_io;
  if (!out.constant_folding_given && saved.do_constant_folding) out.constant_folding = *saved.do_constant_folding;
  if (!out.modules_as_functions && saved.modules_as_functions) {
    out.modules_as_functions = true;
    out.function_module_types = saved.function_module_types;
  }
  // The saved names and axes belong to the saved specs: with other --input they are not used.
  if (!options.inputs.empty()) return out;
  out.inputs = saved.inputs;
  if (out.input_names.empty()) out.input_names = saved.input_names;
  if (out.output_names.empty()) out.output_names = saved.output_names;
  if (out.dynamic_axes.empty()) out.dynamic_axes = saved.dynamic_axes;
  return out;
}

}  // namespace t2o::core
