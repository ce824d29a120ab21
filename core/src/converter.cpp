#include "converter.hpp"

#include "torch2onnx/core/dtype_table.hpp"

#include <torch/csrc/jit/runtime/interpreter.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>

namespace t2o::core {

namespace {

// The most telling line of a TorchScript interpreter error: its RuntimeError text when there is one.
std::string error_summary(const std::string& message) {
  for (const char* marker : {"RuntimeError: ", "Error: "}) {
    auto pos = message.rfind(marker);
    if (pos != std::string::npos) {
      auto end = message.find('\n', pos);
      return message.substr(pos + std::strlen(marker), end == std::string::npos ? std::string::npos : end - pos - std::strlen(marker));
    }
  }
  return first_line(message);
}

bool is_tensor_type(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::TensorType) return true;
  if (auto opt = type->cast<c10::OptionalType>()) return opt->getElementType()->kind() == c10::TypeKind::TensorType;
  return false;
}

std::string describe_ivalue_kind(const c10::IValue& v) { return v.tagKind(); }

// Values are numbered in creation order (Value::unique()).
size_t newest_value_id(torch::jit::Block* block) {
  size_t newest = 0;
  for (auto* v : block->inputs()) newest = std::max(newest, v->unique());
  for (auto* n : block->nodes()) {
    for (auto* v : n->outputs()) newest = std::max(newest, v->unique());
    for (auto* b : n->blocks()) newest = std::max(newest, newest_value_id(b));
  }
  return newest;
}

void forget_values_after(torch::jit::Block* block, size_t newest,
                         std::unordered_map<torch::jit::Value*, TensorInfo>& types) {
  for (auto* n : block->nodes()) {
    for (auto* v : n->outputs())
      if (v->unique() > newest) types.erase(v);
    for (auto* b : n->blocks()) forget_values_after(b, newest, types);
  }
}

}  // namespace

Converter::Converter(const t2o::registry::Registry& registry, const ExportOptions& options, PreparedModel& model,
                     const std::string& model_path)
    : registry_(registry), options_(options), model_(model), model_path_(model_path) {
  opsets_[""] = options.opset;
  for (const auto& [domain, version] : options.custom_opsets)
    if (!domain.empty() && domain != "ai.onnx") opsets_[domain] = version;
}

ValueRec& Converter::rec(t2o_value v) {
  if (!valid(v)) throw ExportError("invalid value handle " + std::to_string(v));
  return values_[(size_t)v];
}

t2o_value Converter::add(ValueRec r) {
  values_.push_back(std::move(r));
  return (t2o_value)(values_.size() - 1);
}

t2o_kind Converter::kind_of_type(const c10::TypePtr& type) {
  switch (type->kind()) {
    case c10::TypeKind::TensorType: return T2O_KIND_TENSOR;
    case c10::TypeKind::IntType: return T2O_KIND_INT;
    case c10::TypeKind::FloatType: return T2O_KIND_FLOAT;
    case c10::TypeKind::NumberType: return T2O_KIND_FLOAT;
    case c10::TypeKind::BoolType: return T2O_KIND_BOOL;
    case c10::TypeKind::StringType: return T2O_KIND_STRING;
    case c10::TypeKind::ListType:
    case c10::TypeKind::TupleType: return T2O_KIND_LIST;
    case c10::TypeKind::NoneType: return T2O_KIND_NONE;
    case c10::TypeKind::DeviceObjType: return T2O_KIND_DEVICE;
    case c10::TypeKind::OptionalType: return kind_of_type(type->castRaw<c10::OptionalType>()->getElementType());
    default: return T2O_KIND_OTHER;
  }
}

std::string Converter::location_of(torch::jit::Node* node) {
  // Module path from the inlined call stack ("layer1.0.conv1 (Conv2d)"), then the source position.
  std::string module_path, module_class;
  if (auto cs = node->callstack()) {
    for (const auto& entry : (*cs)->vec()) {
      const auto& info = std::get<2>(entry);
      if (!info) continue;
      const std::string& name = info->instance_name();
      if (name.empty()) continue;
      if (!module_path.empty()) module_path += ".";
      module_path += name;
      if (info->class_type()) {
        auto qual = info->class_type()->name();
        module_class = qual ? qual->name() : "";
      }
    }
  }
  if (module_path.empty()) {
    // Traced graphs carry the module path in the scope name.
    std::string scope = node->scopeName();
    if (!scope.empty()) module_path = scope;
  }
  std::string source;
  auto range = node->sourceRange();
  if (auto flc = range.file_line_col()) {
    source = std::get<0>(*flc) + ":" + std::to_string(std::get<1>(*flc));
  }
  std::string out;
  if (!module_path.empty()) out = module_path + (module_class.empty() ? "" : " (" + module_class + ")");
  if (!source.empty()) out += (out.empty() ? "" : ", ") + source;
  if (out.empty()) out = "top level of forward()";
  return out;
}

// ---- example run ----

std::vector<std::string> Converter::resolved_input_names() const {
  return options_.input_names.empty() ? model_.argument_names : options_.input_names;
}

std::vector<std::string> Converter::resolved_output_names() const {
  if (!options_.output_names.empty()) return options_.output_names;
  std::vector<std::string> out;
  for (size_t k = 0; k < model_.graph->outputs().size(); ++k) out.push_back("output_" + std::to_string(k));
  return out;
}

namespace {

at::Tensor to_meta(const at::Tensor& t) {
  auto m = at::empty_strided(t.sizes(), t.strides(), t.options().device(at::kMeta));
  // A traced Python scalar is a "wrapped number": it must keep losing type promotion on meta too.
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) m.unsafeGetTensorImpl()->set_wrapped_number(true);
  return m;
}

// Replaces every tensor constant of g (nested blocks included) by its meta-device twin.
void constants_to_meta(torch::jit::Block* block) {
  for (auto* n : block->nodes()) {
    for (auto* b : n->blocks()) constants_to_meta(b);
    if (n->kind() != c10::prim::Constant || !n->hasAttribute(c10::attr::value)) continue;
    if (n->kindOf(c10::attr::value) == torch::jit::AttributeKind::t) {
      // 0-d constants stay on the CPU: they mix with meta tensors as scalars, and shape arithmetic
      // on them (x.size(0) // 2 in traced graphs) needs their values.
      if (n->t(c10::attr::value).dim() > 0) n->t_(c10::attr::value, to_meta(n->t(c10::attr::value)));
    } else if (n->kindOf(c10::attr::value) == torch::jit::AttributeKind::ival) {
      auto iv = n->ival(c10::attr::value);
      if (iv.isTensorList()) {
        c10::List<at::Tensor> meta;
        for (const at::Tensor& t : iv.toTensorVector()) meta.push_back(to_meta(t));
        n->ival_(c10::attr::value, c10::IValue(meta));
      } else if (iv.isList()) {
        auto list = iv.toList();
        bool tensors = false;
        for (const c10::IValue& e : list) tensors |= e.isTensor();
        if (!tensors) continue;
        c10::impl::GenericList meta(list.elementType());
        for (const c10::IValue& e : list) meta.push_back(e.isTensor() ? c10::IValue(to_meta(e.toTensor())) : e);
        n->ival_(c10::attr::value, c10::IValue(meta));
      }
    }
  }
}

}  // namespace

void link_meta_kernels();  // meta_kernels.cpp

std::unordered_map<torch::jit::Value*, TensorInfo> Converter::run_example(
    const std::vector<std::vector<int64_t>>& shapes) {
  link_meta_kernels();
  // First on the meta device: shapes and dtypes without arithmetic (a ViT's forward pass takes
  // seconds on this machine's BLAS). An op without a meta kernel, or one whose result depends on
  // tensor data, sends us back to a real run on the CPU.
  try {
    return run_example_on(shapes, true);
  } catch (const std::exception& e) {
    if (std::getenv("T2O_DEBUG")) std::cerr << "meta example run failed: " << error_summary(e.what()) << std::endl;
    return run_example_on(shapes, false);
  }
}

std::unordered_map<torch::jit::Value*, TensorInfo> Converter::run_example_on(
    const std::vector<std::vector<int64_t>>& shapes, bool meta) {
  torch::jit::Stack stack;
  at::manual_seed(0);
  for (size_t i = 0; i < shapes.size(); ++i) {
    auto st = *dtype_from_name(specs_[i].dtype);
    auto opts = at::TensorOptions().dtype(st);
    // Integers are ones: valid as indices into any non-empty dim, and safe as divisors.
    at::Tensor t = meta                   ? at::empty(shapes[i], opts.device(at::kMeta))
                   : at::isFloatingType(st) ? at::randn(shapes[i], opts)
                   : st == at::kBool      ? at::zeros(shapes[i], opts)
                                          : at::ones(shapes[i], opts);
    stack.emplace_back(t);
  }
  // Run a copy of the graph whose outputs include every tensor produced at the top level.
  auto g = model_.graph->copy();
  if (meta) constants_to_meta(g->block());
  std::vector<torch::jit::Value*> watched;
  {
    auto orig = model_.graph->nodes().begin();
    auto copy = g->nodes().begin();
    for (; orig != model_.graph->nodes().end(); ++orig, ++copy) {
      // Constants need no run; an Uninitialized placeholder must never become a graph output.
      if (orig->kind() == c10::prim::Constant || orig->kind() == c10::prim::Uninitialized) continue;
      for (size_t k = 0; k < orig->outputs().size(); ++k) {
        if (orig->outputs()[k]->type()->kind() != c10::TypeKind::TensorType) continue;
        watched.push_back(orig->outputs()[k]);
        g->registerOutput(copy->outputs()[k]);
      }
    }
  }
  size_t first_watched = model_.graph->outputs().size();
  {
    torch::jit::Code code(g, "forward");
    torch::jit::InterpreterState state(code);
    state.run(stack);
  }
  if (stack.size() != first_watched + watched.size())
    throw ExportError("internal: example run returned " + std::to_string(stack.size()) + " values");
  std::unordered_map<torch::jit::Value*, TensorInfo> types;
  for (size_t k = 0; k < watched.size(); ++k) {
    const auto& iv = stack[first_watched + k];
    if (!iv.isTensor()) continue;
    const auto& t = iv.toTensor();
    TensorInfo info;
    info.dtype = onnx_dtype(t.scalar_type()).value_or(0);
    info.dims = t.sizes().vec();
    info.known_rank = true;
    types[watched[k]] = std::move(info);
  }
  for (size_t i = 0; i < model_.graph->inputs().size(); ++i) {
    TensorInfo info;
    info.dtype = *onnx_dtype(*dtype_from_name(specs_[i].dtype));
    info.dims = shapes[i];
    info.known_rank = true;
    types[model_.graph->inputs()[i]] = info;
  }
  return types;
}

std::string Converter::bind_defaults() {
  // Trailing arguments without an --input take their default values, as torch.onnx lets them, and
  // `--input none` gives an Optional argument None: each becomes a constant, so the branches on it
  // (`if src_mask is not None`) fold away.
  const auto& given = options_.inputs;
  specs_ = given;
  size_t n = model_.argument_names.size();
  if (given.empty() || given.size() > n) return "";  // record_types() reports the count
  const auto& arguments = model_.module.get_method("forward").function().getSchema().arguments();  // [0]: self
  std::string missing;
  for (size_t i = given.size(); i < n; ++i)
    if (!arguments[i + 1].default_value()) missing += (missing.empty() ? "'" : ", '") + model_.argument_names[i] + "'";
  if (!missing.empty()) return missing;
  std::vector<std::pair<size_t, c10::IValue>> bound;
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i].dtype != "none") continue;
    if (model_.argument_types[i]->kind() != c10::TypeKind::OptionalType)
      throw ExportError("--input none for forward() argument '" + model_.argument_names[i] + "' of type " +
                        model_.argument_types[i]->annotation_str() + ": only an Optional argument can be None");
    bound.emplace_back(i, c10::IValue());
  }
  for (size_t i = given.size(); i < n; ++i) bound.emplace_back(i, *arguments[i + 1].default_value());
  auto& graph = *model_.graph;
  torch::jit::WithInsertPoint guard(graph.block()->nodes().front());
  for (auto it = bound.rbegin(); it != bound.rend(); ++it) {  // from the last: indices stay valid
    size_t i = it->first;
    graph.inputs()[i]->replaceAllUsesWith(graph.insertConstant(it->second));
    graph.eraseInput(i);
    model_.argument_names.erase(model_.argument_names.begin() + (std::ptrdiff_t)i);
    model_.argument_types.erase(model_.argument_types.begin() + (std::ptrdiff_t)i);
  }
  specs_.erase(std::remove_if(specs_.begin(), specs_.end(), [](const InputSpec& s) { return s.dtype == "none"; }),
               specs_.end());
  return "";
}

void Converter::record_types() {
  const std::string no_default = bind_defaults();
  const auto& names = model_.argument_names;
  const auto& specs = specs_;
  auto list_args = [&]() {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i)
      s += (i ? ", " : "") + names[i] + ": " + model_.argument_types[i]->annotation_str();
    return s;
  };
  if (specs.size() != names.size()) {
    if (specs.empty())
      throw ExportError("forward() takes " + std::to_string(names.size()) + " argument(s) (" + list_args() +
                        "); give each with --input TYPE[DIMS], e.g. --input float32[1,3,224,224]");
    throw ExportError("forward() takes " + std::to_string(names.size()) + " argument(s) (" + list_args() + ") but " +
                      std::to_string(specs.size()) + " --input given" +
                      (no_default.empty() ? "" : " (without a default: " + no_default + ")"));
  }
  for (size_t i = 0; i < specs.size(); ++i)
    if (!is_tensor_type(model_.argument_types[i]))
      throw ExportError("forward() argument '" + names[i] + "' is " + model_.argument_types[i]->annotation_str() +
                        "; only Tensor arguments can be graph inputs");

  // Dynamic axes: resolve names, check axes against ranks.
  const auto in_names = resolved_input_names();
  const auto out_names = resolved_output_names();
  std::vector<std::vector<int64_t>> shapes, varied;
  for (const auto& s : specs) shapes.push_back(s.dims);
  varied = shapes;
  input_symbols_.assign(specs.size(), {});
  output_symbols_.assign(out_names.size(), {});
  for (const auto& spec : options_.dynamic_axes) {
    auto in = std::find(in_names.begin(), in_names.end(), spec.name);
    auto out = std::find(out_names.begin(), out_names.end(), spec.name);
    if (in == in_names.end() && out == out_names.end()) {
      std::string valid;
      for (const auto& n : in_names) valid += (valid.empty() ? "" : ", ") + n;
      for (const auto& n : out_names) valid += (valid.empty() ? "" : ", ") + n;
      throw ExportError("--dynamic-axes names '" + spec.name + "', which is no input or output; valid names: " + valid);
    }
    if (in != in_names.end()) {
      size_t i = (size_t)(in - in_names.begin());
      for (const auto& [axis, symbol] : spec.axes) {
        if (axis >= (int64_t)shapes[i].size())
          throw ExportError("--dynamic-axes " + spec.name + ": axis " + std::to_string(axis) + " is out of range for " +
                            specs[i].text);
        input_symbols_[i][axis] = symbol.empty() ? spec.name + "_dim" + std::to_string(axis) : symbol;
        // A different size for the second run; equal sizes stay equal, so inputs that share an axis agree.
        varied[i][(size_t)axis] = shapes[i][(size_t)axis] + 1;
      }
    } else {
      size_t k = (size_t)(out - out_names.begin());
      for (const auto& [axis, symbol] : spec.axes) output_symbols_[k][axis] = symbol;
    }
  }

  varied = dynamic_run_shapes(options_.dynamic_inputs, specs, shapes, varied);  // --dynamic-input
  // What the export context decides (no autograd, arguments at their defaults) is folded before the
  // run, so the values of the branches it selects are recorded too.
  fold_static_shapes(model_.graph, {});
  record_runs(shapes, varied);
  // Folding on the recorded dtypes and shapes can inline more branches: their values need a run too.
  for (int rerun = 0; rerun < 4; ++rerun) {
    size_t newest = newest_value_id(model_.graph->block());
    bool inlined = fold_static_shapes(model_.graph, types_);
    // A value the fold made may sit where one it destroyed was: what was recorded there is not its.
    forget_values_after(model_.graph->block(), newest, types_);
    if (!inlined) break;
    record_runs(shapes, varied);
  }
}

void Converter::record_runs(const std::vector<std::vector<int64_t>>& shapes,
                            const std::vector<std::vector<int64_t>>& varied) {
  const auto& specs = specs_;
  const auto in_names = resolved_input_names();
  std::string specs_text;
  for (const auto& s : specs) specs_text += (specs_text.empty() ? "" : " ") + s.text;
  try {
    types_ = run_example(shapes);
  } catch (const ExportError&) {
    throw;
  } catch (const std::exception& e) {
    throw ExportError("running the model on example inputs (--input " + specs_text + ") failed: " +
                      error_summary(e.what()));
  }
  if (varied == shapes) return;

  // Second run with the dynamic axes at other sizes: dims that change are dynamic (-1).
  std::unordered_map<torch::jit::Value*, TensorInfo> other;
  try {
    other = run_example(varied);
  } catch (const std::exception& e) {
    std::string shown;
    for (size_t i = 0; i < varied.size(); ++i) {
      shown += (shown.empty() ? "" : ", ") + in_names[i] + "[";
      for (size_t d = 0; d < varied[i].size(); ++d) shown += (d ? "," : "") + std::to_string(varied[i][d]);
      shown += "]";
    }
    throw ExportError("with the dynamic axes at other sizes (" + shown +
                      ") the model fails, so it fixes those sizes (e.g. a traced constant shape): " +
                      error_summary(e.what()));
  }
  for (auto& [value, info] : types_) {
    auto it = other.find(value);
    if (it == other.end() || it->second.dims.size() != info.dims.size()) continue;
    info.alt_dims = it->second.dims;
    info.run_dims = info.dims;
    for (size_t d = 0; d < info.dims.size(); ++d)
      if (info.alt_dims[d] != info.dims[d]) info.dims[d] = -1;
  }
  // The symbol of each dynamic input dim, keyed by its (first, second) sizes, to name output dims.
  for (size_t i = 0; i < specs.size(); ++i)
    for (const auto& [axis, symbol] : input_symbols_[i])
      symbol_of_sizes_.emplace(std::make_pair(shapes[i][(size_t)axis], varied[i][(size_t)axis]), symbol);
}

// ---- the walk ----

void Converter::add_graph_inputs() {
  const auto& given = options_.input_names;
  size_t n = model_.graph->inputs().size();
  if (!given.empty() && given.size() != n)
    throw ExportError("--input-names gives " + std::to_string(given.size()) + " name(s) but forward() takes " +
                      std::to_string(n));
  for (size_t i = 0; i < n; ++i) {
    std::string name = given.empty() ? model_.argument_names[i] : given[i];
    if (!names_.insert(name).second) throw ExportError("input name '" + name + "' is used twice");
    input_names_.push_back(name);
    auto* tv = model_.graph->inputs()[i];
    ValueRec r;
    r.kind = T2O_KIND_TENSOR;
    r.onnx = name;
    const auto& info = types_.at(tv);
    r.dtype = info.dtype;
    r.rank = (int32_t)info.dims.size();
    r.dims = info.dims;
    bound_[tv] = add(std::move(r));
  }
}

ValueRec Converter::constant_tensor(const at::Tensor& t, torch::jit::Node* node, const std::string& hint) {
  ValueRec r;
  r.kind = T2O_KIND_TENSOR;
  r.constant = true;
  r.tensor = t.is_contiguous() ? t : t.contiguous();
  auto dt = onnx_dtype(t.scalar_type());
  if (!dt)
    throw ExportError("constant tensor of type " + std::string(c10::toString(t.scalar_type())) + " at " +
                      location_of(node) + " has no ONNX element type");
  r.dtype = *dt;
  r.rank = (int32_t)t.dim();
  r.dims = t.sizes().vec();
  r.s = hint;
  return r;
}

void Converter::add_constant(torch::jit::Node* node) {
  auto* out = node->output();
  auto iv = torch::jit::toIValue(out);
  ValueRec r;
  r.constant = true;
  if (!iv || iv->isNone()) {
    r.kind = T2O_KIND_NONE;
  } else if (iv->isTensor()) {
    // Frozen weights keep their attribute path as debug name ("self.conv1.weight"): a readable initializer name.
    std::string hint = out->hasDebugName() ? out->debugName() : "";
    if (hint.rfind("self.", 0) == 0) hint = hint.substr(5);
    r = constant_tensor(iv->toTensor(), node, hint);
  } else if (iv->isInt()) {
    r.kind = T2O_KIND_INT;
    r.i = iv->toInt();
    r.f = (double)r.i;
  } else if (iv->isDouble()) {
    r.kind = T2O_KIND_FLOAT;
    r.f = iv->toDouble();
    r.i = (int64_t)r.f;
  } else if (iv->isBool()) {
    r.kind = T2O_KIND_BOOL;
    r.i = iv->toBool();
    r.f = (double)r.i;
  } else if (iv->isString()) {
    r.kind = T2O_KIND_STRING;
    r.s = iv->toStringRef();
  } else if (iv->isDevice()) {
    r.kind = T2O_KIND_DEVICE;
    r.s = iv->toDevice().str();
  } else if (iv->isIntList() || iv->isDoubleList() || iv->isBoolList()) {
    r.kind = T2O_KIND_LIST;
    std::vector<t2o_value> items;
    for (const auto& e : iv->toListRef()) {
      ValueRec item;
      item.constant = true;
      if (e.isInt()) { item.kind = T2O_KIND_INT; item.i = e.toInt(); item.f = (double)item.i; }
      else if (e.isDouble()) { item.kind = T2O_KIND_FLOAT; item.f = e.toDouble(); item.i = (int64_t)item.f; }
      else { item.kind = T2O_KIND_BOOL; item.i = e.toBool(); item.f = (double)item.i; }
      items.push_back(add(std::move(item)));
    }
    r.items = std::move(items);
  } else if (iv->isTensorList() || iv->isList()) {
    // e.g. the flat weight list of a frozen LSTM, or the List[Optional[Tensor]] indices of x[[0, 2]].
    r.kind = T2O_KIND_LIST;
    std::vector<t2o_value> items;
    size_t k = 0;
    for (const c10::IValue& element : iv->toListRef()) {
      ValueRec item;
      if (element.isNone()) {
        item.kind = T2O_KIND_NONE;
        item.constant = true;
        items.push_back(add(std::move(item)));
        continue;
      }
      if (!element.isTensor())
        throw ExportError("constant list of " + element.tagKind() + " at " + location_of(node) + " is not supported");
      item = constant_tensor(element.toTensor(), node, out->hasDebugName() ? out->debugName() + "_" + std::to_string(k) : "");
      ++k;
      items.push_back(add(std::move(item)));
    }
    r.items = std::move(items);
  } else {
    r.kind = T2O_KIND_OTHER;
    r.s = describe_ivalue_kind(*iv);
  }
  bound_[out] = add(std::move(r));
}

t2o_value Converter::handle_of(torch::jit::Value* v) {
  auto it = bound_.find(v);
  if (it != bound_.end()) return it->second;
  std::string producer = v->node() ? v->node()->kind().toQualString() : "?";
  throw ExportError("value %" + v->debugName() + " (output of " + producer + " at " + location_of(v->node()) +
                    ") was not bound by its symbolic");
}

t2o_value Converter::type_handle_of(torch::jit::Value* v) {
  auto it = type_only_.find(v);
  if (it != type_only_.end()) return it->second;
  ValueRec r;
  r.kind = kind_of_type(v->type());
  auto info = types_.find(v);
  if (info != types_.end()) {
    r.dtype = info->second.dtype;
    r.rank = (int32_t)info->second.dims.size();
    r.dims = info->second.dims;
  } else if (auto tt = v->type()->cast<c10::TensorType>()) {
    if (auto st = tt->scalarType()) r.dtype = onnx_dtype(*st).value_or(0);
    if (auto rank = tt->dim()) {
      r.rank = (int32_t)*rank;
      r.dims.assign(*rank, -1);
    }
  }
  t2o_value h = add(std::move(r));
  type_only_[v] = h;
  return h;
}

t2o_value Converter::add_initializer(const at::Tensor& t, int32_t onnx_dtype, const std::string& hint) {
  auto it = initializer_of_.find(t.unsafeGetTensorImpl());
  if (it != initializer_of_.end()) return it->second;
  Initializer init;
  init.name = unique_name(hint.empty() ? "const" : hint);
  init.dtype = onnx_dtype;
  init.dims = t.sizes().vec();
  init.tensor = t.is_contiguous() ? t : t.contiguous();
  ValueRec r;
  r.kind = T2O_KIND_TENSOR;
  r.constant = true;
  r.onnx = init.name;
  r.dtype = onnx_dtype;
  r.rank = (int32_t)t.dim();
  r.dims = init.dims;
  r.tensor = init.tensor;
  initializers_.push_back(std::move(init));
  t2o_value h = add(std::move(r));
  initializer_of_[t.unsafeGetTensorImpl()] = h;
  return h;
}

t2o_value Converter::materialize(t2o_value v) {
  {
    auto& r = rec(v);
    if (r.kind == T2O_KIND_TENSOR && !r.onnx.empty()) return v;
    if (r.materialized != T2O_NO_VALUE) return r.materialized;
  }
  const ValueRec r = rec(v);  // a copy: add() below may grow the table
  t2o_value out = T2O_NO_VALUE;
  switch (r.kind) {
    case T2O_KIND_TENSOR:
      if (!r.constant || !r.tensor.defined()) throw ExportError("a tensor value has no ONNX name (not produced yet)");
      out = add_initializer(r.tensor, r.dtype, r.s);
      break;
    case T2O_KIND_INT:
    case T2O_KIND_BOOL:
    case T2O_KIND_FLOAT: {
      if (!r.constant) throw ExportError("a dynamic scalar has no ONNX tensor");
      at::Tensor t = r.kind == T2O_KIND_INT    ? at::scalar_tensor(r.i, at::kLong)
                     : r.kind == T2O_KIND_BOOL ? at::scalar_tensor((bool)r.i, at::kBool)
                                               : at::scalar_tensor(r.f, at::kFloat);
      out = add_initializer(t, *onnx_dtype(t.scalar_type()));
      break;
    }
    case T2O_KIND_LIST: {
      bool any_float = false;
      std::vector<double> fs;
      std::vector<int64_t> is;
      for (auto item : r.items) {
        const auto& e = rec(item);
        if (!e.constant || (e.kind != T2O_KIND_INT && e.kind != T2O_KIND_FLOAT && e.kind != T2O_KIND_BOOL))
          throw ExportError("a list holding tensors or run-time values has no single ONNX tensor; the symbolic must "
                            "build it (e.g. Unsqueeze + Concat)");
        any_float |= e.kind == T2O_KIND_FLOAT;
        fs.push_back(e.f);
        is.push_back(e.i);
      }
      at::Tensor t = any_float ? at::tensor(fs, at::kDouble).to(at::kFloat) : at::tensor(is, at::kLong);
      out = add_initializer(t, *onnx_dtype(t.scalar_type()));
      break;
    }
    case T2O_KIND_NONE: throw ExportError("None has no ONNX tensor (pass an empty value for an omitted input)");
    default: throw ExportError("a value of this kind has no ONNX tensor");
  }
  rec(v).materialized = out;
  return out;
}

std::string Converter::unique_name(const std::string& hint) {
  std::string base = hint.empty() ? "v" : hint;
  if (names_.insert(base).second) return base;
  for (;;) {
    std::string name = base + "_" + std::to_string(++name_counter_);
    if (names_.insert(name).second) return name;
  }
}

t2o_value Converter::emit(const t2o_node_spec& spec, t2o_value* outputs, std::string& error) {
  if (!spec.op_type || !*spec.op_type) { error = "emit_node: empty op_type"; return T2O_NO_VALUE; }
  if (spec.num_inputs < 0 || spec.num_outputs < 1 || spec.num_attrs < 0) {
    error = "emit_node: bad input/output/attribute counts";
    return T2O_NO_VALUE;
  }
  std::vector<std::string> in;
  for (int32_t k = 0; k < spec.num_inputs; ++k) {
    t2o_value v = spec.inputs[k];
    if (v == T2O_NO_VALUE) { in.emplace_back(); continue; }
    if (!valid(v)) { error = "emit_node " + std::string(spec.op_type) + ": input " + std::to_string(k) + " is not a valid value"; return T2O_NO_VALUE; }
    in.push_back(rec(materialize(v)).onnx);
  }
  while (!in.empty() && in.back().empty()) in.pop_back();  // trailing omitted optionals

  auto* n = graph_.add_node();
  std::string domain = spec.domain ? spec.domain : "";
  n->set_op_type(spec.op_type);
  if (!domain.empty()) {
    n->set_domain(domain);
    if (!opsets_.count(domain)) opsets_[domain] = 1;
  }
  std::string name = unique_name(spec.op_type);
  n->set_name(name);
  for (auto& s : in) n->add_input(s);
  for (int32_t k = 0; k < spec.num_outputs; ++k) {
    std::string out = k == 0 ? name : unique_name(name + "_" + std::to_string(k));
    n->add_output(out);
    ValueRec r;
    r.kind = T2O_KIND_TENSOR;
    r.onnx = out;
    outputs[k] = add(std::move(r));
  }
  for (int32_t k = 0; k < spec.num_attrs; ++k) {
    const t2o_attr& a = spec.attrs[k];
    if (!a.name || !*a.name) { error = "emit_node " + std::string(spec.op_type) + ": attribute without a name"; return T2O_NO_VALUE; }
    auto* attr = n->add_attribute();
    attr->set_name(a.name);
    switch (a.type) {
      case T2O_ATTR_INT: attr->set_type(onnx::AttributeProto::INT); attr->set_i(a.ints[0]); break;
      case T2O_ATTR_FLOAT: attr->set_type(onnx::AttributeProto::FLOAT); attr->set_f((float)a.floats[0]); break;
      case T2O_ATTR_STRING: attr->set_type(onnx::AttributeProto::STRING); attr->set_s(a.strings[0]); break;
      case T2O_ATTR_INTS:
        attr->set_type(onnx::AttributeProto::INTS);
        for (int64_t j = 0; j < a.count; ++j) attr->add_ints(a.ints[j]);
        break;
      case T2O_ATTR_FLOATS:
        attr->set_type(onnx::AttributeProto::FLOATS);
        for (int64_t j = 0; j < a.count; ++j) attr->add_floats((float)a.floats[j]);
        break;
      case T2O_ATTR_STRINGS:
        attr->set_type(onnx::AttributeProto::STRINGS);
        for (int64_t j = 0; j < a.count; ++j) attr->add_strings(a.strings[j]);
        break;
      case T2O_ATTR_TENSOR: {
        if (!valid(a.tensor) || !rec(a.tensor).constant || !rec(a.tensor).tensor.defined()) {
          error = "emit_node " + std::string(spec.op_type) + ": tensor attribute '" + a.name + "' needs a constant tensor";
          return T2O_NO_VALUE;
        }
        const auto& t = rec(a.tensor).tensor;
        attr->set_type(onnx::AttributeProto::TENSOR);
        auto* tp = attr->mutable_t();
        tp->set_data_type(rec(a.tensor).dtype);
        for (auto d : t.sizes()) tp->add_dims(d);
        tp->set_raw_data(t.data_ptr(), t.nbytes());
        break;
      }
      default:
        error = "emit_node " + std::string(spec.op_type) + ": attribute '" + a.name + "' has unknown type " + std::to_string(a.type);
        return T2O_NO_VALUE;
    }
  }
  ++stats_.onnx_nodes;
  return outputs[0];
}

void Converter::bind_output(torch::jit::Node* node, int32_t index, t2o_value v) {
  auto* tv = node->output((size_t)index);
  bound_[tv] = v;
  auto& r = rec(v);
  if (r.kind == T2O_KIND_TENSOR && (r.dtype == 0 || r.rank < 0)) {
    auto info = types_.find(tv);
    if (info != types_.end()) {
      if (r.dtype == 0) r.dtype = info->second.dtype;
      if (r.rank < 0) {
        r.rank = (int32_t)info->second.dims.size();
        r.dims = info->second.dims;
      }
    }
  }
}

int64_t Converter::opset_of(const std::string& domain) const {
  if (domain.empty() || domain == "ai.onnx") return options_.opset;
  auto it = opsets_.find(domain);
  return it == opsets_.end() ? 0 : it->second;
}

void Converter::require_opset(const std::string& domain, int64_t version) {
  if (domain.empty() || domain == "ai.onnx") {
    if (version > options_.opset)
      throw ExportError("needs opset " + std::to_string(version) + " of the default domain; target is " +
                        std::to_string(options_.opset));
    return;
  }
  auto it = opsets_.find(domain);
  if (it != opsets_.end() && it->second != version && it->second != 1)
    throw ExportError("domain " + domain + " required at version " + std::to_string(version) + " and " +
                      std::to_string(it->second));
  opsets_[domain] = version;
}

void Converter::warn(const std::string& message) {
  if (options_.warn) options_.warn(message);
}

const t2o::registry::Symbolic* Converter::find_symbolic(torch::jit::Node* node) const {
  std::string kind = node->kind().toQualString();
  if (auto* s = registry_.lookup(kind, "", options_.opset)) return s;
  // Ops of custom domains: registered under the domain whose opset selects them. A domain whose
  // version is set (--custom-opset) dispatches at that version; otherwise the newest registration.
  for (const auto& domain : registry_.domains_of(kind)) {
    if (domain.empty()) continue;
    auto v = opset_of(domain);
    if (auto* s = registry_.lookup(kind, domain, v ? v : INT64_MAX)) return s;
  }
  return nullptr;
}

void Converter::check_convertible() {
  struct Missing {
    size_t count = 0;
    std::string first_location;
    std::optional<int64_t> min_opset;
  };
  std::map<std::string, Missing> missing;
  std::function<void(torch::jit::Block*)> scan = [&](torch::jit::Block* block) {
    for (auto* node : block->nodes()) {
      if (node->kind() == c10::prim::Constant) continue;
      if (!find_symbolic(node)) {
        auto& m = missing[node->kind().toQualString()];
        if (m.count++ == 0) {
          m.first_location = location_of(node);
          m.min_opset = registry_.min_opset(node->kind().toQualString(), "");
        }
      }
      for (auto* b : node->blocks()) scan(b);
    }
  };
  scan(model_.graph->block());
  if (missing.empty()) return;
  std::vector<std::pair<std::string, Missing>> sorted(missing.begin(), missing.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  std::ostringstream msg;
  msg << "cannot convert " << sorted.size() << " op kind(s) at opset " << options_.opset << ": ";
  for (size_t i = 0; i < sorted.size(); ++i) {
    const auto& [kind, m] = sorted[i];
    if (i) msg << "; ";
    msg << kind << " (" << m.count << " node" << (m.count == 1 ? "" : "s") << ", first at " << m.first_location << ", ";
    if (m.min_opset && *m.min_opset > options_.opset) msg << "needs --opset " << *m.min_opset << ")";
    else msg << "no pack converts it)";
  }
  throw ExportError(msg.str());
}

void Converter::convert_node(torch::jit::Node* node) {
  const auto* symbolic = find_symbolic(node);
  t2o_ctx ctx;
  ctx.conv = this;
  ctx.node = node;
  ctx.symbolic = symbolic;
  ctx.location = location_of(node);
  if (!node->blocks().empty())
    throw NodeError(std::string(node->kind().toQualString()) + " at " + ctx.location +
                        ": control flow (nested blocks) is not supported yet",
                    "control flow (nested blocks) is not supported yet", true);
  if (symbolic->domain.size() && opset_of(symbolic->domain) == 0) opsets_[symbolic->domain] = symbolic->since_opset;
  int before = graph_.node_size();
  t2o_status status = symbolic->fn(host_api(), &ctx, symbolic->user_data);
  const auto& pack = registry_.plugins().size() > symbolic->plugin_index
                         ? registry_.plugins()[symbolic->plugin_index].name
                         : std::string("(built in)");
  if (status != T2O_OK) {
    std::string what = ctx.error.empty() ? "failed without a message" : ctx.error;
    std::string file;  // the pack's file name, so a failing vendor pack is easy to find
    if (registry_.plugins().size() > symbolic->plugin_index) {
      file = registry_.plugins()[symbolic->plugin_index].path;
      file = ", " + file.substr(file.find_last_of('/') + 1);
    }
    throw NodeError(std::string(node->kind().toQualString()) + " at " + ctx.location + " (pack " + pack + file +
                        ", since opset " + std::to_string(symbolic->since_opset) + "): " +
                        (status == T2O_UNSUPPORTED ? "unsupported arguments: " : "") + what,
                    what, status == T2O_UNSUPPORTED);
  }
  for (size_t k = 0; k < node->outputs().size(); ++k) {
    auto* out = node->outputs()[k];
    if (!bound_.count(out) && out->hasUses())
      throw NodeError(std::string(node->kind().toQualString()) + " at " + ctx.location + " (pack " + pack +
                          "): the symbolic did not bind output " + std::to_string(k),
                      "the symbolic did not bind output " + std::to_string(k), false);
  }
  // Remember who made each new ONNX node, to attribute checker errors.
  for (int i = before; i < graph_.node_size(); ++i)
    pack_of_node_[graph_.node(i).name()] = std::string(node->kind().toQualString()) + " at " + ctx.location + " (pack " + pack + ")";
}

void Converter::convert() {
  add_graph_inputs();  // record_types() folded the graph on the recorded types
  if (!check_mode_ && options_.operator_export_type == OperatorExportType::Onnx) check_convertible();
  size_t total = 0, done = 0;
  if (options_.progress)
    for (auto* node : model_.graph->nodes()) total += node->kind() != c10::prim::Constant;
  for (auto* node : model_.graph->nodes()) {
    if (options_.progress && node->kind() != c10::prim::Constant && ++done % 256 == 0)
      options_.progress("convert", done, total);
    if (node->kind() == c10::prim::Constant) {
      add_constant(node);
      continue;
    }
    ++stats_.torch_nodes;
    const auto* symbolic = find_symbolic(node);
    if (!symbolic) {
      auto min = registry_.min_opset(node->kind().toQualString(), "");
      bool later = min && *min > options_.opset;
      unconvertible(node, later ? "needs_opset" : "no_symbolic",
                    later ? "needs --opset " + std::to_string(*min) : "no pack converts it", later ? min : std::nullopt);
      continue;
    }
    int before = graph_.node_size();
    try {
      refuse_lost_writes(node);
      convert_node(node);
    } catch (const NodeError& e) {
      if (!check_mode_ && !(e.unsupported && options_.operator_export_type != OperatorExportType::Onnx)) throw;
      // Drop what the failed symbolic emitted before it gave up.
      graph_.mutable_node()->DeleteSubrange(before, graph_.node_size() - before);
      unconvertible(node, e.unsupported ? "symbolic_refused" : "symbolic_failed", e.message, std::nullopt);
    }
  }
  if (check_mode_) return;  // outputs may be placeholders; nothing is assembled
  finish_outputs();
}

void Converter::refuse_lost_writes(torch::jit::Node* node) {
  // An in-place op left after mutation removal writes into a tensor that others still read (a view
  // of a base tensor, or a value used later). A symbolic can only return a new tensor, so the write
  // would be lost and the model silently wrong: refuse instead.
  auto schema = node->maybeSchema();
  if (!schema || !schema->is_mutable()) return;
  static const std::unordered_set<std::string> views = {
      "aten::slice", "aten::select", "aten::view", "aten::reshape", "aten::narrow", "aten::as_strided",
      "aten::expand", "aten::permute", "aten::transpose", "aten::t", "aten::squeeze", "aten::unsqueeze",
      "aten::diagonal", "aten::flatten", "aten::unflatten", "aten::view_as", "aten::expand_as",
      "aten::unbind", "aten::split", "aten::chunk", "aten::__getitem__", "prim::ListUnpack", "aten::alias",
      "aten::detach", "aten::movedim", "aten::unfold"};
  const auto& args = schema->arguments();
  for (size_t i = 0; i < args.size() && i < node->inputs().size(); ++i) {
    if (!args[i].alias_info() || !args[i].alias_info()->isWrite()) continue;
    auto* target = node->input(i);
    std::string producer = target->node()->kind().toQualString();
    auto used_after = [&](torch::jit::Value* v) {
      return std::any_of(v->uses().begin(), v->uses().end(),
                         [&](const torch::jit::Use& u) { return u.user != node && u.user->isAfter(node); });
    };
    // A write into a view matters when the tensor it views is read afterwards (walk up the view chain).
    torch::jit::Value* base = target;
    while (views.count(base->node()->kind().toQualString()) && !base->node()->inputs().empty())
      base = base->node()->input(0);
    bool view = base != target && used_after(base);
    bool read_later = used_after(target);
    if (view || read_later)
      throw NodeError(std::string(node->kind().toQualString()) + " at " + location_of(node) +
                          ": in-place write into " + (view ? "a view (" + producer + ") of another tensor" : "a tensor read later") +
                          " cannot be exported (the write would be lost)",
                      "in-place write into " + (view ? "a view (" + producer + ") of another tensor" : "a tensor read later") +
                          " cannot be exported (the write would be lost)",
                      false);
  }
}

void Converter::scan_missing() {
  std::function<void(torch::jit::Block*)> scan = [&](torch::jit::Block* block) {
    for (auto* node : block->nodes()) {
      if (node->kind() == c10::prim::Constant) continue;
      ++stats_.torch_nodes;
      if (!find_symbolic(node)) {
        auto min = registry_.min_opset(node->kind().toQualString(), "");
        bool later = min && *min > options_.opset;
        unconvertible(node, later ? "needs_opset" : "no_symbolic",
                      later ? "needs --opset " + std::to_string(*min) : "no pack converts it",
                      later ? min : std::nullopt);
      }
      for (auto* b : node->blocks()) scan(b);
    }
  };
  scan(model_.graph->block());
}

void Converter::unconvertible(torch::jit::Node* node, const std::string& reason, const std::string& message,
                              std::optional<int64_t> min_opset) {
  if (!check_mode_) {
    emit_fallback(node);
    return;
  }
  bool downstream = std::any_of(node->inputs().begin(), node->inputs().end(),
                                [&](torch::jit::Value* v) { return tainted_.count(v) > 0; });
  // A symbolic that failed on placeholder inputs says nothing about the model: only the first failure counts.
  if (!downstream || reason == "no_symbolic" || reason == "needs_opset") {
    NodeFailure f;
    f.op = node->kind().toQualString();
    if (auto schema = node->maybeSchema()) {
      f.overload = schema->overload_name();
      std::stringstream ss;
      ss << *schema;
      f.schema = ss.str();
    }
    f.reason = reason;
    f.message = message;
    f.min_opset = min_opset;
    f.location = location_of(node);
    failures_.push_back(std::move(f));
  }
  // Placeholders with the TorchScript types let the rest of the graph be checked.
  for (auto* out : node->outputs()) {
    tainted_.insert(out);
    ValueRec r;
    r.kind = kind_of_type(out->type());
    auto info = types_.find(out);
    if (r.kind == T2O_KIND_TENSOR) {
      r.onnx = unique_name("unconverted");
      if (info != types_.end()) {
        r.dtype = info->second.dtype;
        r.rank = (int32_t)info->second.dims.size();
        r.dims = info->second.dims;
      }
    } else if (r.kind == T2O_KIND_INT || r.kind == T2O_KIND_FLOAT || r.kind == T2O_KIND_BOOL) {
      r.onnx = unique_name("unconverted");
      r.rank = 0;
    } else {
      r.kind = T2O_KIND_OTHER;
    }
    bound_[out] = add(std::move(r));
  }
}

void Converter::emit_fallback(torch::jit::Node* node) {
  // The op itself, as torch.onnx's ONNX_ATEN_FALLBACK / ONNX_FALLTHROUGH do: tensors (and run-time
  // scalars) become inputs, constant arguments become attributes named after the schema's arguments.
  const bool aten = options_.operator_export_type == OperatorExportType::AtenFallback;
  const std::string qual = node->kind().toQualString();
  const std::string ns = node->kind().ns().toUnqualString();
  const std::string name = node->kind().toUnqualString();
  auto schema = node->maybeSchema();
  auto* n = graph_.add_node();
  n->set_op_type(aten ? "ATen" : name);
  n->set_domain(aten ? "org.pytorch.aten" : ns);
  opsets_[n->domain()] = 1;
  n->set_name(unique_name(aten ? "ATen_" + name : name));
  auto add_attr = [&](const std::string& attr_name) {
    auto* a = n->add_attribute();
    a->set_name(attr_name);
    return a;
  };
  if (aten) {
    auto* a = add_attr("operator");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(name);
    a = add_attr("overload_name");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(schema ? schema->overload_name() : "");
  }
  for (size_t i = 0; i < node->inputs().size(); ++i) {
    std::string arg = schema && i < schema->arguments().size() ? schema->arguments()[i].name() : "arg" + std::to_string(i);
    t2o_value h = handle_of(node->input(i));
    const ValueRec r = rec(h);
    if (r.kind == T2O_KIND_TENSOR || (!r.constant && (r.kind == T2O_KIND_INT || r.kind == T2O_KIND_FLOAT || r.kind == T2O_KIND_BOOL))) {
      n->add_input(rec(materialize(h)).onnx);
      continue;
    }
    if (r.kind == T2O_KIND_LIST) {
      bool numbers = true, any_float = false;
      for (auto item : r.items) {
        const auto& e = rec(item);
        numbers &= e.constant && (e.kind == T2O_KIND_INT || e.kind == T2O_KIND_FLOAT || e.kind == T2O_KIND_BOOL);
        any_float |= e.kind == T2O_KIND_FLOAT;
      }
      if (numbers) {
        auto* a = add_attr(arg);
        a->set_type(any_float ? onnx::AttributeProto::FLOATS : onnx::AttributeProto::INTS);
        for (auto item : r.items) {
          if (any_float) a->add_floats((float)rec(item).f);
          else a->add_ints(rec(item).i);
        }
      } else {
        for (auto item : r.items) n->add_input(rec(materialize(item)).onnx);
      }
      continue;
    }
    switch (r.kind) {
      case T2O_KIND_INT:
      case T2O_KIND_BOOL: { auto* a = add_attr(arg); a->set_type(onnx::AttributeProto::INT); a->set_i(r.i); break; }
      case T2O_KIND_FLOAT: { auto* a = add_attr(arg); a->set_type(onnx::AttributeProto::FLOAT); a->set_f((float)r.f); break; }
      case T2O_KIND_STRING: { auto* a = add_attr(arg); a->set_type(onnx::AttributeProto::STRING); a->set_s(r.s); break; }
      default: break;  // None, devices, layouts: nothing an ONNX node can hold
    }
  }
  for (auto* out : node->outputs()) {
    if (kind_of_type(out->type()) != T2O_KIND_TENSOR)
      throw ExportError(qual + " at " + location_of(node) + ": cannot fall back: output of type " +
                        out->type()->annotation_str() + " is not a tensor");
    ValueRec r;
    r.kind = T2O_KIND_TENSOR;
    r.onnx = unique_name(n->name() + "_out");
    n->add_output(r.onnx);
    auto info = types_.find(out);
    if (info != types_.end()) {
      r.dtype = info->second.dtype;
      r.rank = (int32_t)info->second.dims.size();
      r.dims = info->second.dims;
    }
    bound_[out] = add(std::move(r));
  }
  ++stats_.onnx_nodes;
  ++stats_.fallback_nodes;
  pack_of_node_[n->name()] = qual + " at " + location_of(node) + " (fallback)";
}

void Converter::fill_value_info(onnx::ValueInfoProto* info, t2o_value v, torch::jit::Value* torch_value,
                                const std::map<int64_t, std::string>& symbols) {
  auto* tensor_type = info->mutable_type()->mutable_tensor_type();
  int32_t dtype = rec(v).dtype;
  std::vector<int64_t> dims = rec(v).dims, alt, first;
  int32_t rank = rec(v).rank;
  if (torch_value) {
    auto it = types_.find(torch_value);
    if (it != types_.end()) {
      if (!dtype) dtype = it->second.dtype;
      dims = it->second.dims;
      alt = it->second.alt_dims;
      first = it->second.run_dims;
      rank = (int32_t)dims.size();
    }
  }
  if (!dtype) throw ExportError("'" + info->name() + "' has no known element type");
  tensor_type->set_elem_type(dtype);
  if (rank >= 0) {
    auto* shape = tensor_type->mutable_shape();
    for (int32_t i = 0; i < rank; ++i) {
      auto* d = shape->add_dim();
      auto named = symbols.find(i);
      if (named != symbols.end() && !named->second.empty()) {
        d->set_dim_param(named->second);
      } else if (dims[(size_t)i] >= 0 && named == symbols.end()) {
        d->set_dim_value(dims[(size_t)i]);
      } else {
        // Dynamic: the input dim that varied the same way gives its name; else a name of its own.
        std::string symbol = info->name() + "_dim" + std::to_string(i);
        if ((size_t)i < alt.size() && (size_t)i < first.size()) {
          auto match = symbol_of_sizes_.find({first[(size_t)i], alt[(size_t)i]});
          if (match != symbol_of_sizes_.end()) symbol = match->second;
        }
        d->set_dim_param(symbol);
      }
    }
  }
}

void Converter::finish_outputs() {
  const auto& outs = model_.graph->outputs();
  // Tuple and list outputs (left when control flow kept tuples from being lowered) are flattened into
  // one ONNX output per tensor, in order, as torch.onnx does.
  struct Flat {
    t2o_value handle;
    torch::jit::Value* torch_value;  // for the recorded type; null for list items
    size_t original;                 // index of the TorchScript output
  };
  std::vector<Flat> flat;
  std::function<void(t2o_value, torch::jit::Value*, size_t)> flatten = [&](t2o_value h, torch::jit::Value* tv, size_t k) {
    const auto& r = rec(h);
    bool tensor_list = r.kind == T2O_KIND_LIST && !r.items.empty() &&
                       std::any_of(r.items.begin(), r.items.end(), [&](t2o_value i) {
                         return rec(i).kind == T2O_KIND_TENSOR || rec(i).kind == T2O_KIND_LIST;
                       });
    if (!tensor_list) {
      flat.push_back({h, tv, k});
      return;
    }
    const std::vector<t2o_value> items = r.items;
    for (auto item : items) flatten(item, nullptr, k);
  };
  for (size_t k = 0; k < outs.size(); ++k) flatten(handle_of(outs[k]), outs[k], k);

  const auto& given = options_.output_names;
  if (!given.empty() && given.size() != flat.size())
    throw ExportError("--output-names gives " + std::to_string(given.size()) + " name(s) but the model has " +
                      std::to_string(flat.size()) + " output(s)");
  // Which ONNX names are produced by nodes (and so may be renamed to the output's name).
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < graph_.node_size(); ++i)
    for (const auto& o : graph_.node(i).output()) producer[o] = i;
  std::unordered_map<std::string, std::string> rename;
  for (size_t k = 0; k < flat.size(); ++k) {
    std::string name = given.empty() ? "output_" + std::to_string(k) : given[k];
    t2o_value h = flat[k].handle;
    if (rec(h).kind != T2O_KIND_TENSOR && rec(h).kind != T2O_KIND_INT && rec(h).kind != T2O_KIND_FLOAT &&
        rec(h).kind != T2O_KIND_BOOL && rec(h).kind != T2O_KIND_LIST)
      throw ExportError("model output " + std::to_string(k) + " is not a tensor");
    t2o_value t = materialize(h);
    std::string inner = rec(t).onnx;
    if (names_.count(name) && !(producer.count(inner) && inner == name)) {
      // The wanted name is taken (e.g. an input); only a fresh name works.
      if (!given.empty() || std::find(input_names_.begin(), input_names_.end(), name) != input_names_.end())
        throw ExportError("output name '" + name + "' is already used by an input or another output");
    }
    names_.insert(name);
    if (producer.count(inner) && !rename.count(inner)) {
      rename[inner] = name;
    } else {
      auto* n = graph_.add_node();
      n->set_op_type("Identity");
      n->set_name(unique_name("Identity"));
      n->add_input(rename.count(inner) ? rename[inner] : inner);
      n->add_output(name);
      ++stats_.onnx_nodes;
    }
    output_names_.push_back(name);
    auto* info = graph_.add_output();
    info->set_name(name);
    static const std::map<int64_t, std::string> none;
    fill_value_info(info, t, flat[k].torch_value, k < output_symbols_.size() ? output_symbols_[k] : none);
  }
  rename_ = rename;
  if (!options_.dynamic_axes.empty()) collect_dynamic_values();
  if (!rename.empty()) {
    for (int i = 0; i < graph_.node_size(); ++i) {
      auto* n = graph_.mutable_node(i);
      for (auto& s : *n->mutable_input()) {
        auto it = rename.find(s);
        if (it != rename.end()) s = it->second;
      }
      for (auto& s : *n->mutable_output()) {
        auto it = rename.find(s);
        if (it != rename.end()) s = it->second;
      }
    }
  }
  for (size_t i = 0; i < input_names_.size(); ++i) {
    auto* info = graph_.add_input();
    info->set_name(input_names_[i]);
    fill_value_info(info, bound_.at(model_.graph->inputs()[i]), model_.graph->inputs()[i], input_symbols_[i]);
  }
}

void Converter::collect_dynamic_values() {
  // In graph order, so the first warning names the first op that fixed a size.
  for (auto* node : model_.graph->nodes()) {
    for (auto* tv : node->outputs()) {
      auto type = types_.find(tv);
      auto bound = bound_.find(tv);
      if (type == types_.end() || bound == bound_.end()) continue;
      const auto& dims = type->second.dims;
      if (std::none_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) continue;
      const auto& r = values_[(size_t)bound->second];
      if (r.kind != T2O_KIND_TENSOR || r.onnx.empty() || r.constant) continue;
      auto renamed = rename_.find(r.onnx);
      dynamic_values_.push_back({renamed == rename_.end() ? r.onnx : renamed->second, dims,
                                 std::string(node->kind().toQualString()) + " at " + location_of(node)});
    }
  }
}

std::vector<std::string> Converter::specialization_warnings(const onnx::ModelProto& model) const {
  std::vector<std::string> out;
  std::unordered_map<std::string, const onnx::TypeProto*> inferred;
  for (const auto& vi : model.graph().value_info()) inferred[vi.name()] = &vi.type();
  for (const auto& vi : model.graph().output()) inferred[vi.name()] = &vi.type();
  for (const auto& v : dynamic_values_) {
    auto it = inferred.find(v.onnx);
    if (it == inferred.end() || !it->second->tensor_type().has_shape()) continue;
    const auto& shape = it->second->tensor_type().shape();
    if (shape.dim_size() != (int)v.dims.size()) continue;
    for (int d = 0; d < shape.dim_size(); ++d) {
      if (v.dims[(size_t)d] < 0 && shape.dim(d).has_dim_value()) {
        out.push_back(v.origin + ": dim " + std::to_string(d) + " of its result is fixed to " +
                      std::to_string(shape.dim(d).dim_value()) + " in the ONNX graph but varies with the dynamic axes");
        break;
      }
    }
  }
  return out;
}

std::string Converter::origin_of(const std::string& onnx_node) const {
  auto it = pack_of_node_.find(onnx_node);
  return it == pack_of_node_.end() ? std::string() : it->second;
}

onnx::ModelProto Converter::build_model(std::vector<StreamedTensor>* streamed) {
  onnx::ModelProto model;
  model.set_ir_version(8);  // ONNX 1.12 (opsets up to 17)
  model.set_producer_name("torch2onnx");
  model.set_producer_version(options_.producer_version);
  for (const auto& [domain, version] : opsets_) {
    auto* op = model.add_opset_import();
    op->set_domain(domain);
    op->set_version(version);
  }
  graph_.set_name("main_graph");
  for (auto& init : initializers_) {
    auto* t = graph_.add_initializer();
    t->set_name(init.name);
    t->set_data_type(init.dtype);
    for (auto d : init.dims) t->add_dims(d);
    size_t n = init.tensor.nbytes();
    stats_.initializer_bytes += n;
    if (n >= kStreamThresholdBytes) {
      // Large: the bytes stay in the tensor until the writer streams them to the file; meanwhile a
      // graph input of the same type and shape stands in for it.
      graph_.mutable_initializer()->RemoveLast();
      auto* in = graph_.add_input();
      in->set_name(init.name);
      auto* tt = in->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(init.dtype);
      auto* shape = tt->mutable_shape();
      for (auto d : init.dims) shape->add_dim()->set_dim_value(d);
      streamed->push_back({init.name, init.dtype, init.dims, init.tensor});
    } else {
      t->set_raw_data(init.tensor.data_ptr(), n);
    }
    init.tensor = at::Tensor();
  }
  stats_.initializers = initializers_.size();
  initializers_.clear();
  // The value table's constants may hold the same tensors: drop them so the writer's references are the last.
  values_.clear();
  initializer_of_.clear();
  *model.mutable_graph() = std::move(graph_);
  return model;
}

}  // namespace t2o::core
