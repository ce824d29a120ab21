#include "convert/value_table.hpp"

#include "common/deferred_tensors.hpp"
#include "common/locations.hpp"
#include "torch2onnx/core/dtype_table.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <cstddef>

namespace t2o::core {

ValueRec& ValueTable::rec(t2o_value v) {
  if (!valid(v)) throw ExportError("invalid value handle " + std::to_string(v));
  return values_[(size_t)v];
}

t2o_value ValueTable::add(ValueRec r) {
  values_.push_back(std::move(r));
  return (t2o_value)(values_.size() - 1);
}

t2o_kind kind_of_type(const c10::TypePtr& type) {
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

ValueRec ValueTable::constant_tensor(const at::Tensor& t, const torch::jit::Node* node, const std::string& hint) {
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

void ValueTable::add_constant(const torch::jit::Node* node) {
  auto* out = node->output();
  auto iv = torch::jit::toIValue(out);
  ValueRec r;
  r.constant = true;
  if (!iv || iv->isNone()) {
    r.kind = T2O_KIND_NONE;
  } else if (iv->isTensor()) {
    // Frozen weights keep their attribute path as debug name ("self.conv1.weight"): a readable initializer name.
    std::string hint = out->hasDebugName() ? out->debugName() : "";
    const bool weight = hint.rfind("self.", 0) == 0;
    if (weight) hint = hint.substr(5);
    r = constant_tensor(iv->toTensor(), node, hint);
    r.weight = weight;
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
      if (element.isString() || element.isIntList()) {  // str[] / int[][] (torch.onnx.ops' encoded attributes)
        item.constant = true;
        item.kind = element.isString() ? T2O_KIND_STRING : T2O_KIND_LIST;
        if (element.isString()) item.s = element.toStringRef();
        for (int64_t i : element.isIntList() ? element.toIntVector() : std::vector<int64_t>{}) {
          ValueRec e;
          e.kind = T2O_KIND_INT, e.constant = true, e.i = i, e.f = (double)i;
          item.items.push_back(add(std::move(e)));
        }
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
  } else if (iv->isTuple()) {
    // A tuple constant propagation folded (`return torch.zeros(5), torch.zeros(5)` in a branch),
    // held as the host holds tuples: a list of its items.
    r.kind = T2O_KIND_LIST;
    size_t k = 0;
    for (const c10::IValue& element : iv->toTupleRef().elements()) {
      ValueRec item;
      item.constant = true;
      if (element.isNone()) {
        item.kind = T2O_KIND_NONE;
      } else if (element.isTensor()) {
        item = constant_tensor(element.toTensor(), node,
                               out->hasDebugName() ? out->debugName() + "_" + std::to_string(k++) : "");
      } else if (element.isInt() || element.isBool()) {
        item.kind = element.isInt() ? T2O_KIND_INT : T2O_KIND_BOOL;
        item.i = element.isInt() ? element.toInt() : element.toBool();
        item.f = (double)item.i;
      } else if (element.isDouble()) {
        item.kind = T2O_KIND_FLOAT;
        item.f = element.toDouble();
        item.i = (int64_t)item.f;
      } else {
        throw ExportError("constant tuple holding " + element.tagKind() + " at " + location_of(node) + " is not supported");
      }
      r.items.push_back(add(std::move(item)));
    }
  } else {
    r.kind = T2O_KIND_OTHER;
    r.s = iv->tagKind();
  }
  bound_[out] = add(std::move(r));
}

t2o_value ValueTable::handle_of(const torch::jit::Value* v) const {
  auto it = bound_.find(v);
  if (it != bound_.end()) return it->second;
  std::string producer = v->node() ? v->node()->kind().toQualString() : "?";
  throw ExportError("value %" + const_cast<torch::jit::Value*>(v)->debugName() + " (output of " + producer + " at " + location_of(v->node()) +
                    ") was not bound by its symbolic");
}

t2o_value ValueTable::type_handle_of(const torch::jit::Value* v) {
  auto it = type_only_.find(v);
  if (it != type_only_.end()) return it->second;
  ValueRec r;
  r.kind = kind_of_type(v->type());
  if (const TensorInfo* info = types_.find(v)) {
    // For a list of tensors: its elements' type.
    r.dtype = info->dtype;
    if (info->known_rank) {
      r.rank = (int32_t)info->dims.size();
      r.dims = info->dims;
    }
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

t2o_value ValueTable::add_initializer(const at::Tensor& t, int32_t onnx_dtype, const std::string& hint, bool weight) {
  auto it = initializer_of_.find(t.unsafeGetTensorImpl());
  if (it != initializer_of_.end()) return it->second;
  Initializer init;
  init.name = graph_.unique_name(hint.empty() ? "const" : hint);
  init.dtype = onnx_dtype;
  init.dims = t.sizes().vec();
  init.tensor = t.is_contiguous() ? t : t.contiguous();
  init.weight = weight;
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

t2o_value ValueTable::materialize(t2o_value v) {
  {
    auto& r = rec(v);
    if ((r.kind == T2O_KIND_TENSOR || r.kind == T2O_KIND_SEQUENCE || r.kind == T2O_KIND_OPTIONAL) && !r.onnx.empty())
      return v;
    if (r.materialized != T2O_NO_VALUE) return r.materialized;
  }
  const ValueRec r = rec(v);  // a copy: add() below may grow the table
  t2o_value out = T2O_NO_VALUE;
  switch (r.kind) {
    case T2O_KIND_TENSOR:
      if (!r.constant || !r.tensor.defined()) throw ExportError("a tensor value has no ONNX name (not produced yet)");
      if (r.tensor.is_complex())  // exported as its (real, imaginary) pairs
        out = add_initializer(at::view_as_real(r.tensor).contiguous(), complex_parts_dtype(r.dtype), r.s);
      else
        out = add_initializer(r.tensor, r.dtype, r.s, r.weight);
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

void ValueTable::bind_output(const torch::jit::Node* node, size_t index, t2o_value v) {
  const auto* tv = node->outputs()[index];
  bound_[tv] = v;
  auto& r = rec(v);
  if (r.kind == T2O_KIND_LIST) {
    // A list of tensors a symbolic built (split's parts): what the example run saw of each item types
    // the items the symbolic left untyped, so the list can be returned or used whole.
    const TensorInfo* info = types_.find(tv);
    if (info && info->list_elements && info->item_dims.size() == r.items.size()) {
      const std::vector<t2o_value> items = r.items;
      for (size_t k = 0; k < items.size(); ++k) {
        auto& item = rec(items[k]);
        if (item.kind != T2O_KIND_TENSOR) continue;
        if (item.dtype == 0) item.dtype = info->item_dtypes[k];
        if (item.rank < 0) {
          item.rank = (int32_t)info->item_dims[k].size();
          item.dims = info->item_dims[k];
        }
      }
    }
    return;
  }
  if ((r.kind == T2O_KIND_TENSOR || r.kind == T2O_KIND_SEQUENCE || r.kind == T2O_KIND_OPTIONAL) &&
      (r.dtype == 0 || r.rank < 0)) {
    if (const TensorInfo* info = types_.find(tv)) {
      if (r.dtype == 0) r.dtype = info->dtype;
      if (r.rank < 0 && info->known_rank) {
        r.rank = (int32_t)info->dims.size();
        r.dims = info->dims;
      }
    }
  }
}

t2o_value ValueTable::placeholder(const torch::jit::Value* tv, const std::string& onnx_name) {
  ValueRec r;
  r.kind = kind_of_type(tv->type());
  r.onnx = onnx_name;
  if (r.kind == T2O_KIND_INT || r.kind == T2O_KIND_FLOAT || r.kind == T2O_KIND_BOOL) {
    r.rank = 0;
    r.dtype = r.kind == T2O_KIND_INT ? T2O_DTYPE_INT64 : r.kind == T2O_KIND_BOOL ? T2O_DTYPE_BOOL : T2O_DTYPE_FLOAT;
  } else if (r.kind == T2O_KIND_LIST) {
    r.kind = T2O_KIND_SEQUENCE;
    // A list of ints or bools (a list comprehension of sizes) holds 0-d int64 / bool tensors; the
    // example run records element types of tensor lists only.
    if (auto list = tv->type()->cast<c10::ListType>()) {
      auto elem = list->getElementType()->kind();
      if (elem == c10::TypeKind::IntType) r.dtype = T2O_DTYPE_INT64;
      if (elem == c10::TypeKind::BoolType) r.dtype = T2O_DTYPE_BOOL;
    }
  }
  if (const TensorInfo* info = types_.find(tv)) {
    if (r.kind == T2O_KIND_TENSOR || r.kind == T2O_KIND_SEQUENCE) {
      r.dtype = info->dtype;
      if (info->known_rank) {
        r.rank = (int32_t)info->dims.size();
        r.dims = info->dims;
      }
    }
  }
  return add(std::move(r));
}

t2o_value emit_node(ValueTable& values, GraphBuilder& graph, const t2o_node_spec& spec, t2o_value* outputs,
                    std::string& error) {
  if (!spec.op_type || !*spec.op_type) { error = "emit_node: empty op_type"; return T2O_NO_VALUE; }
  if (spec.num_inputs < 0 || spec.num_outputs < 1 || spec.num_attrs < 0) {
    error = "emit_node: bad input/output/attribute counts";
    return T2O_NO_VALUE;
  }
  std::vector<std::string> in;
  for (int32_t k = 0; k < spec.num_inputs; ++k) {
    t2o_value v = spec.inputs[k];
    if (v == T2O_NO_VALUE) { in.emplace_back(); continue; }
    if (!values.valid(v)) { error = "emit_node " + std::string(spec.op_type) + ": input " + std::to_string(k) + " is not a valid value"; return T2O_NO_VALUE; }
    in.push_back(values.rec(values.materialize(v)).onnx);
  }
  while (!in.empty() && in.back().empty()) in.pop_back();  // trailing omitted optionals

  auto* n = graph.current().add_node();
  std::string domain = spec.domain ? spec.domain : "";
  n->set_op_type(spec.op_type);
  if (!domain.empty()) {
    n->set_domain(domain);
    graph.import_domain(domain, 1);
  }
  std::string name = graph.unique_name(spec.op_type);
  n->set_name(name);
  for (auto& s : in) n->add_input(s);
  for (int32_t k = 0; k < spec.num_outputs; ++k) {
    std::string out = k == 0 ? name : graph.unique_name(name + "_" + std::to_string(k));
    n->add_output(out);
    ValueRec r;
    r.kind = T2O_KIND_TENSOR;
    r.onnx = out;
    outputs[k] = values.add(std::move(r));
  }
  // Attributes are read with the stride the pack built them with (plugin.h): t2o_attr may grow.
  size_t stride = spec.num_attrs > 0 ? spec.attrs[0].struct_size : sizeof(t2o_attr);
  if (spec.num_attrs > 0 && (stride < offsetof(t2o_attr, tensor) + sizeof(t2o_value) || stride > 4096)) {
    error = "emit_node " + std::string(spec.op_type) + ": t2o_attr.struct_size " + std::to_string(stride) +
            " is not a t2o_attr's size";
    return T2O_NO_VALUE;
  }
  for (int32_t k = 0; k < spec.num_attrs; ++k) {
    const t2o_attr& a = *reinterpret_cast<const t2o_attr*>(reinterpret_cast<const char*>(spec.attrs) + (size_t)k * stride);
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
        if (!values.valid(a.tensor) || !values.rec(a.tensor).constant || !values.rec(a.tensor).tensor.defined()) {
          error = "emit_node " + std::string(spec.op_type) + ": tensor attribute '" + a.name + "' needs a constant tensor";
          return T2O_NO_VALUE;
        }
        const auto& t = values.rec(a.tensor).tensor;
        deferred::materialize(t);
        attr->set_type(onnx::AttributeProto::TENSOR);
        auto* tp = attr->mutable_t();
        tp->set_data_type(values.rec(a.tensor).dtype);
        for (auto d : t.sizes()) tp->add_dims(d);
        tp->set_raw_data(t.data_ptr(), t.nbytes());
        break;
      }
      case T2O_ATTR_GRAPH: {
        // A subgraph closed by subgraph_end: attached to exactly one node.
        if (!values.valid(a.tensor) || values.rec(a.tensor).kind != T2O_KIND_GRAPH ||
            !graph.valid_subgraph((int32_t)values.rec(a.tensor).i)) {
          error = "emit_node " + std::string(spec.op_type) + ": graph attribute '" + a.name +
                  "' needs a closed subgraph not attached to another node";
          return T2O_NO_VALUE;
        }
        attr->set_type(onnx::AttributeProto::GRAPH);
        *attr->mutable_g() = graph.take_subgraph((int32_t)values.rec(a.tensor).i);
        break;
      }
      default:
        error = "emit_node " + std::string(spec.op_type) + ": attribute '" + a.name + "' has unknown type " + std::to_string(a.type);
        return T2O_NO_VALUE;
    }
  }
  ++graph.onnx_nodes;
  return outputs[0];
}


void ValueTable::release() {
  initializers_.clear();
  // The constants may hold the same tensors as the initializers: drop them so the writer's references are the last.
  values_.clear();
  initializer_of_.clear();
  bound_.clear();
  type_only_.clear();
}

t2o_value emit_single(ValueTable& values, GraphBuilder& graph, const char* op, std::vector<t2o_value> inputs,
                      const t2o_attr* attrs, int32_t num_attrs, const std::string& what) {
  t2o_node_spec spec{};
  spec.struct_size = sizeof spec;
  spec.op_type = op;
  spec.domain = "";
  spec.inputs = inputs.data();
  spec.num_inputs = (int32_t)inputs.size();
  spec.num_outputs = 1;
  spec.attrs = attrs;
  spec.num_attrs = attrs ? num_attrs : 0;
  t2o_value out = T2O_NO_VALUE;
  std::string error;
  if (emit_node(values, graph, spec, &out, error) == T2O_NO_VALUE)
    throw ExportError("internal: " + what + ": " + op + ": " + error);
  return out;
}

}  // namespace t2o::core
