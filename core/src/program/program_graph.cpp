#include "program/program_graph.hpp"

#include "torch2onnx/core/error_reason.hpp"

#include <torch/csrc/jit/frontend/source_range.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/operator.h>
#include <torch/version.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <cmath>
#include <sstream>

namespace t2o::core::program {

using torch::jit::Value;

c10::ScalarType scalar_type_of(const JsonAt& at) {
  const int64_t v = at.integer();
  switch (v) {
    case 1: return c10::ScalarType::Byte;
    case 2: return c10::ScalarType::Char;
    case 3: return c10::ScalarType::Short;
    case 4: return c10::ScalarType::Int;
    case 5: return c10::ScalarType::Long;
    case 6: return c10::ScalarType::Half;
    case 7: return c10::ScalarType::Float;
    case 8: return c10::ScalarType::Double;
    case 9: return c10::ScalarType::ComplexHalf;
    case 10: return c10::ScalarType::ComplexFloat;
    case 11: return c10::ScalarType::ComplexDouble;
    case 12: return c10::ScalarType::Bool;
    case 13: return c10::ScalarType::BFloat16;
    case 28: at.fail("dtype uint16 (28) is not supported by this libtorch");
    case 29: case 30: case 31: case 32: at.fail("float8 dtypes (" + std::to_string(v) + ") cannot be converted");
    default: at.fail("unknown dtype number " + std::to_string(v) + " (the schema numbers FLOAT=7, LONG=5, BOOL=12, ...)");
  }
}

namespace {

int64_t layout_of(const JsonAt& at) {
  switch (at.integer()) {
    case 7: return (int64_t)c10::Layout::Strided;
    case 1: return (int64_t)c10::Layout::Sparse;
    case 2: return (int64_t)c10::Layout::SparseCsr;
    case 3: return (int64_t)c10::Layout::SparseCsc;
    case 4: return (int64_t)c10::Layout::SparseBsr;
    case 5: return (int64_t)c10::Layout::SparseBsc;
    case 6: return (int64_t)c10::Layout::Mkldnn;
    default: at.fail("unknown layout number " + std::to_string(at.integer()));
  }
}

int64_t memory_format_of(const JsonAt& at) {
  switch (at.integer()) {
    case 1: return (int64_t)c10::MemoryFormat::Contiguous;
    case 2: return (int64_t)c10::MemoryFormat::ChannelsLast;
    case 3: return (int64_t)c10::MemoryFormat::ChannelsLast3d;
    case 4: return (int64_t)c10::MemoryFormat::Preserve;
    default: at.fail("unknown memory format number " + std::to_string(at.integer()));
  }
}

c10::Device device_of(const JsonAt& at) {
  std::string type = at.at("type").str();
  int64_t index = -1;
  if (auto i = at.opt("index")) index = i->integer();
  try {
    c10::Device d(type);
    return index >= 0 ? c10::Device(d.type(), (c10::DeviceIndex)index) : d;
  } catch (const std::exception&) {
    at.fail("unknown device '" + type + "'");
  }
}

bool is_torch_frame(const std::string& file) {
  // Frames inside PyTorch itself (site-packages/torch/..., dist-packages/torch/...) are not the user's.
  for (const char* marker : {"/torch/", "<eval_with_key>", "<frozen "})
    if (file.find(marker) != std::string::npos) return true;
  return file.rfind("torch/", 0) == 0;  // 2.14 writes its own frames relative
}

// "L__self___encoder_layers_0,encoder.layers.0,torch.nn.modules.x.Layer;..." (2.6 and 2.14 alike):
// the innermost call names the node's module.
void parse_module_stack(const std::string& text, NodeOrigin& o) {
  o.calls = parse_module_calls(text);
  if (o.calls.empty()) return;
  o.module_path = o.calls.back().path;
  const std::string& type = o.calls.back().type;
  auto dot = type.rfind('.');
  o.module_class = dot == std::string::npos ? type : type.substr(dot + 1);
}

}  // namespace

std::string NodeOrigin::text() const {
  std::string out;
  if (!module_path.empty()) out = module_path + (module_class.empty() ? "" : " (" + module_class + ")");
  if (!file.empty()) out += (out.empty() ? "" : ", ") + file + ":" + std::to_string(line);
  return out;
}

NodeOrigin origin_of(const JsonAt& node) {
  NodeOrigin o;
  auto meta = node.opt("metadata");
  if (!meta || !meta->raw().is_object()) return o;
  const auto& m = meta->raw();
  if (auto it = m.find("stack_trace"); it != m.end() && it->is_string()) {
    // '  File "model.py", line 6, in forward\n    return self.c(x)\n' frames, outermost first.
    std::istringstream lines(it->get<std::string>());
    std::string line, file, code;
    int64_t lineno = 0;
    std::string user_file, user_code;
    int64_t user_line = 0;
    bool expecting_code = false;
    while (std::getline(lines, line)) {
      auto f = line.find("File \"");
      if (f != std::string::npos) {
        auto q = line.find('"', f + 6);
        if (q == std::string::npos) continue;
        file = line.substr(f + 6, q - f - 6);
        auto l = line.find("line ", q);
        lineno = l == std::string::npos ? 0 : std::atoll(line.c_str() + l + 5);
        expecting_code = true;
        if (!is_torch_frame(file)) {
          user_file = file;
          user_line = lineno;
          user_code.clear();
        }
        continue;
      }
      if (expecting_code) {
        expecting_code = false;
        auto b = line.find_first_not_of(' ');
        if (b != std::string::npos && file == user_file && lineno == user_line) user_code = line.substr(b);
      }
    }
    if (user_file.empty() && !file.empty()) {
      user_file = file;
      user_line = lineno;
    }
    o.file = user_file;
    o.line = user_line;
    o.code = user_code;
  }
  if (auto it = m.find("nn_module_stack"); it != m.end() && it->is_string()) parse_module_stack(it->get<std::string>(), o);
  return o;
}

namespace {
std::string describe_unknown(const std::string& path, const std::vector<CustomOpUse>& uses) {
  bool all_hops = true;
  for (const auto& u : uses) all_hops = all_hops && u.op.rfind("higher_order.", 0) == 0;
  std::string s = all_hops ? path + ": the program calls " + std::to_string(uses.size()) +
                                 " higher-order operator(s) torch2onnx does not convert yet (only cond, while_loop, map, "
                                 "scan and the no_grad/autocast regions): "
                           : path + ": the program calls " + std::to_string(uses.size()) + " op(s) that libtorch " +
                                 TORCH_VERSION + " (with torch2onnx's compatibility library) and no loaded pack know: ";
  for (size_t i = 0; i < uses.size(); ++i) {
    const auto& u = uses[i];
    s += (i ? "; " : "") + u.op + " (" + std::to_string(u.count) + " call" + (u.count == 1 ? "" : "s") +
         (u.locations.empty() ? "" : ", first at " + u.locations[0]) + ")";
  }
  bool custom = false;
  for (const auto& u : uses) custom = custom || u.op.rfind("higher_order.", 0) != 0;
  if (!custom) return s;
  return s + "; a custom op needs the library of its kernels (--load-library) or a pack declaring its schema "
             "(--plugin-path)";
}
}  // namespace

UnknownProgramOpsError::UnknownProgramOpsError(const std::string& path, std::vector<CustomOpUse> uses)
    : ExportError(describe_unknown(path, uses)), ops(std::move(uses)) {}

void ProgramGraphBuilder::note_unknown(const std::string& op, const JsonAt& node) {
  const std::string where = origin_of(node).text();
  for (auto& u : unknown_)
    if (u.op == op) {
      ++u.count;
      if (u.locations.size() < 3 && !where.empty()) u.locations.push_back(where);
      return;
    }
  CustomOpUse use;
  use.op = op;
  use.count = 1;
  if (!where.empty()) use.locations.push_back(where);
  unknown_.push_back(std::move(use));
}

// The outputs of a node that could not be built, as None: the walk goes on to list every unknown op.
void ProgramGraphBuilder::poison_outputs(const JsonAt& node) {
  Value* none = graph_.insertConstant(c10::IValue());
  std::function<void(const JsonAt&)> bind = [&](const JsonAt& out) {
    auto [key, body] = out.union_member();
    if (key == "as_tensor") tensors_[body.at("name").str()] = none;
    else if (key == "as_tensors")
      for (const auto& t : body.items()) tensors_[t.at("name").str()] = none;
    else if (key == "as_sym_int" || key == "as_sym_float" || key == "as_sym_bool") {
      auto [k2, b2] = body.union_member();
      if (k2 == "as_name") symbols_[b2.str()] = none;
    } else if (key == "as_optional_tensor") {
      auto [k2, b2] = body.union_member();
      if (k2 == "as_tensor") tensors_[b2.at("name").str()] = none;
    }
  };
  for (const auto& out : node.at("outputs").items()) bind(out);
}

Value* ProgramGraphBuilder::tensor(const JsonAt& tensor_argument) {
  const std::string name = tensor_argument.at("name").str();
  auto it = tensors_.find(name);
  if (it == tensors_.end()) tensor_argument.fail("the tensor '" + name + "' is used before any node makes it");
  return it->second;
}

Value* ProgramGraphBuilder::symbol(const JsonAt& sym_argument, const char* kind) {
  auto [key, v] = sym_argument.union_member();
  if (key == "as_name") {
    const std::string name = v.str();
    auto it = symbols_.find(name);
    if (it == symbols_.end()) v.fail(std::string("the ") + kind + " '" + name + "' is used before any node makes it");
    return it->second;
  }
  if (key == "as_int") return graph_.insertConstant(v.integer());
  if (key == "as_float") return graph_.insertConstant(v.number());
  if (key == "as_bool") return graph_.insertConstant(v.boolean());
  sym_argument.fail("unexpected member '" + key + "' of a " + kind);
}

Value* ProgramGraphBuilder::value_of(const JsonAt& argument) { return argument_value(argument, nullptr); }

// One argument as a value of the formal's type (formal null: the argument's own type).
Value* ProgramGraphBuilder::argument_value(const JsonAt& arg, const c10::TypePtr& formal_in) {
  auto [key, v] = arg.union_member();
  c10::TypePtr formal = formal_in;
  if (formal && formal->kind() == c10::TypeKind::OptionalType) formal = formal->expectRef<c10::OptionalType>().getElementType();
  auto elem_of = [&](const c10::TypePtr& t) -> c10::TypePtr {
    return t && t->kind() == c10::TypeKind::ListType ? t->expectRef<c10::ListType>().getElementType() : nullptr;
  };
  const bool wants_float = formal && formal->kind() == c10::TypeKind::FloatType;
  auto constant = [&](c10::IValue iv) { return graph_.insertConstant(std::move(iv)); };

  if (key == "as_none") return graph_.insertConstant(c10::IValue());
  if (key == "as_tensor") return tensor(v);
  if (key == "as_optional_tensor") {
    auto [k2, v2] = v.union_member();
    if (k2 == "as_none") return graph_.insertConstant(c10::IValue());
    return tensor(v2);
  }
  if (key == "as_tensors") {
    std::vector<Value*> items;
    for (const auto& t : v.items()) items.push_back(tensor(t));
    // A Tensor?[] formal (index, index_put) takes a list of optionals: lists are invariant.
    auto elem = elem_of(formal);
    c10::TypePtr type = elem && elem->kind() == c10::TypeKind::OptionalType ? elem : c10::TensorType::get();
    return graph_.insertNode(graph_.createList(type, items))->output();
  }
  if (key == "as_optional_tensors") {
    std::vector<Value*> items;
    for (const auto& t : v.items()) {
      auto [k2, v2] = t.union_member();
      items.push_back(k2 == "as_none" ? graph_.insertConstant(c10::IValue()) : tensor(v2));
    }
    return graph_.insertNode(graph_.createList(c10::OptionalType::create(c10::TensorType::get()), items))->output();
  }
  if (key == "as_int") return wants_float ? constant((double)v.integer()) : constant(v.integer());
  if (key == "as_float") {
    // 2.x's `Scalar? correction` is 1.13's `int? correction`: an integral float passes as an int.
    const double x = v.number();
    if (formal && formal->kind() == c10::TypeKind::IntType && std::isfinite(x) && x == std::floor(x) &&
        std::fabs(x) < 9e18)
      return constant((int64_t)x);
    return constant(x);
  }
  if (key == "as_bool") return constant(v.boolean());
  if (key == "as_string") return constant(v.str());
  if (key == "as_complex") return constant(c10::complex<double>(v.at("real").number(), v.at("imag").number()));
  if (key == "as_ints") {
    auto elem = elem_of(formal);
    if (elem && elem->kind() == c10::TypeKind::FloatType) {
      std::vector<double> xs;
      for (const auto& x : v.items()) xs.push_back((double)x.integer());
      return constant(xs);
    }
    std::vector<int64_t> xs;
    for (const auto& x : v.items()) xs.push_back(x.integer());
    return constant(xs);
  }
  if (key == "as_floats") {
    std::vector<double> xs;
    for (const auto& x : v.items()) xs.push_back(x.number());
    return constant(xs);
  }
  if (key == "as_bools") {
    c10::List<bool> xs;
    for (const auto& x : v.items()) xs.push_back(x.boolean());
    return constant(xs);
  }
  if (key == "as_strings") {
    std::vector<std::string> xs;
    for (const auto& x : v.items()) xs.push_back(x.str());
    return constant(c10::List<std::string>(xs));
  }
  if (key == "as_sym_int" || key == "as_sym_float" || key == "as_sym_bool") {
    Value* s = symbol(v, key.c_str() + 3);
    if (wants_float && s->type()->kind() == c10::TypeKind::IntType)
      return graph_.insert(c10::Symbol::fromQualString("aten::Float"), {s});
    return s;
  }
  if (key == "as_sym_ints" || key == "as_sym_floats" || key == "as_sym_bools") {
    const char* kind = key == "as_sym_ints" ? "sym_int" : key == "as_sym_floats" ? "sym_float" : "sym_bool";
    std::vector<Value*> items;
    bool all_constant = true;
    for (const auto& x : v.items()) {
      items.push_back(symbol(x, kind));
      all_constant = all_constant && items.back()->node()->kind() == c10::prim::Constant;
    }
    c10::TypePtr elem = key == "as_sym_ints" ? (c10::TypePtr)c10::IntType::get()
                        : key == "as_sym_floats" ? (c10::TypePtr)c10::FloatType::get()
                                                 : (c10::TypePtr)c10::BoolType::get();
    if (all_constant && key == "as_sym_ints") {
      std::vector<int64_t> xs;
      for (auto* s : items) xs.push_back(torch::jit::toIValue(s)->toInt());
      return constant(xs);
    }
    return graph_.insertNode(graph_.createList(elem, items))->output();
  }
  if (key == "as_scalar_type") return constant((int64_t)scalar_type_of(v));
  if (key == "as_layout") return constant(layout_of(v));
  if (key == "as_memory_format") return constant(memory_format_of(v));
  if (key == "as_device") return constant(device_of(v));
  if (key == "as_int_lists") {
    c10::List<c10::List<int64_t>> xs;
    for (const auto& inner : v.items()) {
      c10::List<int64_t> ys;
      for (const auto& y : inner.items()) ys.push_back(y.integer());
      xs.push_back(ys);
    }
    return constant(xs);
  }
  if (key == "as_graph")
    arg.fail("a subgraph argument outside a higher-order operator torch2onnx converts (cond, while_loop, map, scan)");
  if (key == "as_custom_obj") arg.fail("a TorchBind object argument cannot be converted");
  if (key == "as_operator") arg.fail("an operator argument (" + v.str() + ") cannot be converted");
  arg.fail("an argument of kind '" + key + "' cannot be converted");
}

// A Python number where only a Tensor will do (no Scalar overload): a 0-d tensor of the dtype
// PyTorch gives a wrapped number (int64, the default float dtype, bool), so promotion is unchanged
// against any tensor with dims.
Value* ProgramGraphBuilder::number_as_tensor(Value* number) {
  const auto kind = number->type()->kind();
  const c10::ScalarType st = kind == c10::TypeKind::IntType ? c10::ScalarType::Long
                             : kind == c10::TypeKind::BoolType ? c10::ScalarType::Bool
                             : kind == c10::TypeKind::ComplexType ? c10::ScalarType::ComplexFloat
                                                                 : c10::typeMetaToScalarType(c10::get_default_dtype());
  Value* none = graph_.insertConstant(c10::IValue());
  return graph_.insert(c10::Symbol::fromQualString("aten::scalar_tensor"), {number},
                       {torch::jit::NamedValue("dtype", graph_.insertConstant((int64_t)st)),
                        torch::jit::NamedValue("layout", none), torch::jit::NamedValue("device", none),
                        torch::jit::NamedValue("pin_memory", none)});
}

void ProgramGraphBuilder::add_nodes(const JsonAt& nodes) {
  for (const auto& node : nodes.items()) add_node(node);
}

namespace {

// Ops a program records for tracing's sake that compute nothing an ONNX model needs.
bool dropped_target(const std::string& t) {
  static const char* const kDropped[] = {
      "torch.ops.aten._assert_scalar.default",        "torch.ops.aten._assert_tensor_metadata.default",
      "torch.ops.aten.sym_constrain_range.default",   "torch.ops.aten.sym_constrain_range_for_size.default",
      "torch.ops.aten._assert_async.msg",             "torch.ops.aten._assert_async.default",
      "torch.ops.aten._print.default",                "torch.ops.aten._functional_assert_scalar.default",
      "torch.ops.aten._functional_sym_constrain_range.default",
      "torch.ops.aten._functional_sym_constrain_range_for_size.default",
      "torch.ops.aten._functional_assert_async.msg",
  };
  for (const char* d : kDropped)
    if (t == d) return true;
  return false;
}

}  // namespace

void ProgramGraphBuilder::add_node(const JsonAt& node) {
  const std::string target = node.at("target").str();
  if (dropped_target(target)) return;
  // The node's origin goes on every TorchScript node made for it: errors, `check` and --print show it.
  const NodeOrigin origin = origin_of(node);
  auto saved_scope = graph_.current_scope();
  if (!origin.module_path.empty())
    graph_.set_current_scope(saved_scope->push(c10::Symbol::scope(
        origin.module_path + (origin.module_class.empty() ? "" : " (" + origin.module_class + ")"))));
  // Nodes go before the insert point: the end of the graph, or of the branch or loop body being built.
  torch::jit::Node* const end = graph_.insertPoint();
  torch::jit::Node* before = end->prev();
  try {
    const std::string ops_prefix = "torch.ops.";
    if (target.rfind(ops_prefix, 0) == 0) {
      std::string rest = target.substr(ops_prefix.size());
      auto first = rest.find('.');
      auto last = rest.rfind('.');
      if (rest.rfind("higher_order.", 0) == 0) {
        add_higher_order(node, rest.substr(13));  // torch.ops.higher_order.NAME: no overload
      } else {
        if (first == std::string::npos || last == first) node.at("target").fail("'" + target + "' is no op overload");
        add_operator_node(node, rest.substr(0, first), rest.substr(first + 1, last - first - 1), rest.substr(last + 1));
      }
    } else {
      add_python_op(node, target);
    }
  } catch (const ExportError&) {
    graph_.set_current_scope(saved_scope);
    throw;
  } catch (const std::exception& e) {
    // libtorch refusing what the file claims (a list of mixed types, a value of the wrong kind): the
    // node's place in the file and libtorch's reason, one line.
    graph_.set_current_scope(saved_scope);
    if (!unknown_.empty()) {
      poison_outputs(node);  // fed by an unknown op: the export stops at the unknown ops anyway
      return;
    }
    node.fail("cannot be built as a TorchScript node: " + first_line(e.what()));
  }
  graph_.set_current_scope(saved_scope);
  if (!origin.file.empty()) {
    auto source = std::make_shared<torch::jit::Source>(origin.code.empty() ? std::string(" ") : origin.code,
                                                       origin.file, (size_t)std::max<int64_t>(origin.line, 1));
    torch::jit::SourceRange range(source, 0, source->size());
    for (auto* n = before->next(); n != end; n = n->next()) n->setSourceRange(range);
  }
  if (auto stack = call_stacks_.of(origin.calls))
    for (auto* n = before->next(); n != end; n = n->next()) n->setCallStack(*stack);
}

void ProgramGraphBuilder::add_operator_node(const JsonAt& node, const std::string& ns, const std::string& name,
                                            const std::string& overload_in) {
  const std::string overload = overload_in == "default" ? "" : overload_in;
  const std::string shown = ns + "::" + name + (overload.empty() ? "" : "." + overload);
  // Sizes of a tensor: TorchScript's aten::size/numel/stride compute them (its sym_* overloads are 2.x's).
  static const std::map<std::string, std::string> kSizeOps = {
      {"sym_size", "aten::size"}, {"sym_numel", "aten::numel"}, {"sym_stride", "aten::stride"},
      {"sym_storage_offset", "aten::storage_offset"}};
  std::string qualified = ns + "::" + name;
  if (ns == "aten" && kSizeOps.count(name)) qualified = kSizeOps.at(name);
  // view on a tensor whose strides libtorch 1.13's kernels lay out otherwise than the writer's
  // PyTorch (an attention's transposed output) would fail in the example run; ONNX has no strides,
  // so a view is a reshape (the same values wherever the view is legal).
  const bool view_as_reshape = ns == "aten" && (name == "view" || name == "_unsafe_view") && overload.empty();
  if (view_as_reshape) qualified = "aten::reshape";
  const auto symbol = c10::Symbol::fromQualString(qualified);
  std::shared_ptr<torch::jit::Operator> op;
  const auto candidates = torch::jit::getAllOperatorsFor(symbol);
  const std::string want_overload =
      qualified == ns + "::" + name ? overload : (overload == "int" && !view_as_reshape ? "int" : "");
  for (const auto& c : candidates)
    if (c->schema().overload_name() == want_overload) op = c;
  if (!op) {
    note_unknown(shown, node);
    poison_outputs(node);
    return;
  }
  // The program names every argument it wrote (positional or keyword) after the schema's arguments.
  std::map<std::string, JsonAt> given;
  const auto inputs = node.at("inputs");
  for (const auto& in : inputs.items()) {
    std::string arg_name = in.at("name").str();
    if (view_as_reshape && arg_name == "size") arg_name = "shape";
    given.emplace(arg_name, in.at("arg"));
  }
  // A Python number where the overload takes a Tensor (`x + 1` records add.Tensor(x, 1)): TorchScript
  // calls the overload that takes a Scalar there (add.Scalar), as its compiler does for `x + 1`.
  auto is_number = [](const JsonAt& arg) {
    const std::string k = arg.union_member().first;
    return k == "as_int" || k == "as_float" || k == "as_bool" || k == "as_sym_int" || k == "as_sym_float" ||
           k == "as_sym_bool" || k == "as_complex";
  };
  auto numbers_for_tensors = [&](const c10::FunctionSchema& s) {
    std::vector<std::string> names;
    for (const auto& formal : s.arguments()) {
      auto it = given.find(formal.name());
      if (it != given.end() && formal.type()->kind() == c10::TypeKind::TensorType && is_number(it->second))
        names.push_back(formal.name());
    }
    return names;
  };
  const auto wrapped = numbers_for_tensors(op->schema());
  if (!wrapped.empty()) {
    for (const auto& c : candidates) {
      if (c == op) continue;
      const auto& s = c->schema();
      bool fits = numbers_for_tensors(s).empty();
      for (const auto& name : wrapped) {
        auto idx = s.argumentIndexWithName(name);
        fits = fits && idx && s.arguments()[*idx].type()->kind() == c10::TypeKind::NumberType;
      }
      for (const auto& [name, arg] : given) fits = fits && s.argumentIndexWithName(name).has_value();
      for (const auto& formal : s.arguments()) fits = fits && (given.count(formal.name()) || formal.default_value());
      if (fits) {
        op = c;
        break;
      }
    }
  }
  const c10::FunctionSchema& schema = op->schema();
  std::vector<Value*> values;
  for (const auto& formal : schema.arguments()) {
    auto it = given.find(formal.name());
    if (it != given.end()) {
      if (formal.type()->kind() == c10::TypeKind::TensorType && is_number(it->second)) {
        values.push_back(number_as_tensor(argument_value(it->second, nullptr)));
      } else {
        values.push_back(argument_value(it->second, formal.type()));
      }
      given.erase(it);
      continue;
    }
    if (formal.default_value()) {
      values.push_back(graph_.insertConstant(*formal.default_value()));
      continue;
    }
    inputs.fail("argument '" + formal.name() + "' of " + shown + " is missing and has no default");
  }
  if (!given.empty()) {
    // A positional program argument of another name: the writer's schema is newer than libtorch's.
    inputs.fail("argument '" + given.begin()->first + "' is not one of " + shown + "'s in libtorch " + TORCH_VERSION +
                " (" + schema.name() + "." + schema.overload_name() + ")");
  }
  auto* n = graph_.create(symbol, values, schema.returns().size());
  for (size_t i = 0; i < schema.returns().size(); ++i) n->output(i)->setType(schema.returns()[i].type());
  graph_.insertNode(n);
  if (!unknown_.empty() && !n->maybeSchema()) {
    // Fed by an unknown op's placeholder: the export stops at the unknown ops anyway.
    poison_outputs(node);
    return;
  }
  if (!n->maybeSchema() || n->schema().overload_name() != schema.overload_name())
    node.fail("the arguments of " + shown + " do not match its schema in libtorch " + TORCH_VERSION + ": " +
              c10::toString(schema));
  bind_outputs(node, n, schema);
}

void ProgramGraphBuilder::bind_outputs(const JsonAt& node, torch::jit::Node* n, const c10::FunctionSchema& schema) {
  const auto outputs = node.at("outputs").items();
  auto bind_one = [&](const JsonAt& out, Value* v) {
    auto [key, body] = out.union_member();
    if (key == "as_tensor") {
      tensors_[body.at("name").str()] = v;
    } else if (key == "as_sym_int" || key == "as_sym_float" || key == "as_sym_bool") {
      // item() and _local_scalar_dense return a Scalar: the symbol is an int (float, bool) in TorchScript.
      if (v->type()->kind() == c10::TypeKind::NumberType) {
        const char* to = key == "as_sym_int" ? "aten::Int" : key == "as_sym_float" ? "aten::Float" : "aten::Bool";
        v = graph_.insert(c10::Symbol::fromQualString(to), {v});
      }
      auto [k2, b2] = body.union_member();
      if (k2 == "as_name") symbols_[b2.str()] = v;
    } else if (key == "as_tensors") {
      auto items = body.items();
      auto* unpack = graph_.insertNode(graph_.createListUnpack(v, items.size()));
      for (size_t k = 0; k < items.size(); ++k) tensors_[items[k].at("name").str()] = unpack->output(k);
    } else if (key == "as_optional_tensor") {
      auto [k2, b2] = body.union_member();
      if (k2 == "as_tensor") tensors_[b2.at("name").str()] = v;
    } else if (key != "as_none") {
      out.fail("a node output of kind '" + key + "' cannot be converted");
    }
  };
  const size_t returns = schema.returns().size();
  if (returns == 1 && outputs.size() > 1 && n->output(0)->type()->kind() == c10::TypeKind::ListType) {
    // A Tensor[] result written as one tensor per element.
    auto* unpack = graph_.insertNode(graph_.createListUnpack(n->output(0), outputs.size()));
    for (size_t k = 0; k < outputs.size(); ++k) bind_one(outputs[k], unpack->output(k));
    return;
  }
  if (outputs.size() > returns)
    node.at("outputs").fail(std::to_string(outputs.size()) + " outputs, where " + c10::toString(schema) + " has " +
                            std::to_string(returns));
  for (size_t k = 0; k < outputs.size(); ++k) bind_one(outputs[k], n->output(k));
}

void ProgramGraphBuilder::add_python_op(const JsonAt& node, const std::string& target) {
  // Size arithmetic on Python numbers: the builtin's TorchScript counterpart, its overload chosen by
  // the operands' types (int, float, bool) as TorchScript's compiler chooses it.
  static const std::map<std::string, std::string> kOps = {
      {"_operator.add", "aten::add"},        {"_operator.sub", "aten::sub"},       {"_operator.mul", "aten::mul"},
      {"_operator.floordiv", "aten::floordiv"}, {"_operator.truediv", "aten::div"}, {"_operator.mod", "aten::remainder"},
      {"_operator.pow", "aten::pow"},        {"_operator.neg", "aten::neg"},       {"_operator.eq", "aten::eq"},
      {"_operator.ne", "aten::ne"},          {"_operator.lt", "aten::lt"},         {"_operator.le", "aten::le"},
      {"_operator.gt", "aten::gt"},          {"_operator.ge", "aten::ge"},         {"_operator.and_", "aten::__and__"},
      {"_operator.or_", "aten::__or__"},     {"_operator.not_", "aten::__not__"},  {"_operator.abs", "prim::abs"},
      {"torch.sym_max", "prim::max"},        {"torch.sym_min", "prim::min"},       {"torch.sym_not", "aten::__not__"},
      {"torch.sym_float", "aten::Float"},    {"torch.sym_int", "aten::Int"},       {"torch.sym_sqrt", "aten::sqrt"},
      {"math.ceil", "aten::ceil"},           {"math.floor", "aten::floor"},        {"math.trunc", "aten::Int"},
      {"torch.sym_sum", "aten::add"},        {"_operator.pos", ""},
  };
  auto it = kOps.find(target);
  if (it == kOps.end()) {
    note_unknown(target, node);
    poison_outputs(node);
    return;
  }
  std::vector<torch::jit::NamedValue> args;
  for (const auto& in : node.at("inputs").items()) {
    auto arg = in.at("arg");
    auto [key, body] = arg.union_member();
    if (key == "as_sym_ints" || key == "as_ints") {
      // torch.sym_sum([a, b, c]): a chain of adds.
      for (const auto& x : body.items()) args.emplace_back(symbol(x, "sym_int"));
      continue;
    }
    args.emplace_back(argument_value(arg, nullptr));
  }
  if (args.empty()) node.at("inputs").fail("no operands for " + target);
  Value* result = nullptr;
  if (it->second.empty()) {
    result = args[0].value(graph_);
  } else if (target == "torch.sym_sum") {
    result = args[0].value(graph_);
    for (size_t i = 1; i < args.size(); ++i)
      result = graph_.insert(c10::Symbol::fromQualString("aten::add"), {torch::jit::NamedValue(result), args[i]});
  } else {
    try {
      result = graph_.insert(c10::Symbol::fromQualString(it->second), args);
    } catch (const std::exception& e) {
      node.fail(target + " on these operands has no TorchScript counterpart: " + std::string(e.what()).substr(0, 200));
    }
  }
  const auto outputs = node.at("outputs").items();
  if (outputs.size() != 1) node.at("outputs").fail("expected one output of " + target);
  auto [key, body] = outputs[0].union_member();
  if (key == "as_sym_int" || key == "as_sym_float" || key == "as_sym_bool") {
    auto [k2, b2] = body.union_member();
    if (k2 == "as_name") symbols_[b2.str()] = result;
  } else if (key == "as_int" || key == "as_float" || key == "as_bool" || key == "as_none") {
    // Folded by the writer: nothing reads it by name.
  } else {
    outputs[0].fail("an output of kind '" + key + "' for " + target);
  }
}

}  // namespace t2o::core::program
