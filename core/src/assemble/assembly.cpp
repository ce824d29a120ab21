#include "assemble/assembly.hpp"

#include "assemble/local_functions.hpp"
#include "convert/quantized_values.hpp"

#include "torch2onnx/core/dtype_table.hpp"
#include "torch2onnx/core/ir_version.hpp"
#include "common/deferred_tensors.hpp"
#include "common/locations.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <unordered_map>

namespace t2o::core {

namespace {

// Element type and shape of one graph input or output; dynamic dims are named after the input dim
// that varied the same way, or get a name of their own.
void fill_value_info(Session& s, onnx::ValueInfoProto* info, t2o_value v, const torch::jit::Value* torch_value,
                     const std::map<int64_t, std::string>& symbols) {
  const ValueRec& r = s.values.rec(v);
  int32_t dtype = r.dtype;
  std::vector<int64_t> dims = r.dims, alt, first;
  int32_t rank = r.rank;
  if (torch_value) {
    if (const TensorInfo* t = s.types.find(torch_value)) {
      if (!dtype) dtype = t->dtype;
      if (t->known_rank) {
        dims = t->dims;
        alt = t->alt_dims;
        first = t->run_dims;
        rank = (int32_t)dims.size();
      } else if (rank < 0 && !t->run_dims.empty() && t->alt_dims.size() == t->run_dims.size()) {
        // No one rank on every path (an If whose branches return tensors of different ranks), but
        // the example runs returned one: declared with that rank, every dim dynamic, as torch.onnx
        // declares the example output's type (a main graph's outputs must have a rank). ONNX
        // Runtime returns another path's result in its own shape.
        rank = (int32_t)t->run_dims.size();
        dims.assign(t->run_dims.size(), -1);
      }
    }
  }
  if (!dtype) throw ExportError("'" + info->name() + "' has no known element type");
  if (is_complex_dtype(dtype) && rank >= 0) {  // a complex input is given as its (real, imaginary) pairs
    dtype = complex_parts_dtype(dtype);
    dims.push_back(2);
    ++rank;
  }
  onnx::TypeProto_Tensor* tensor_type =
      r.kind == T2O_KIND_SEQUENCE   ? info->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()
      : r.kind == T2O_KIND_OPTIONAL ? info->mutable_type()->mutable_optional_type()->mutable_elem_type()->mutable_tensor_type()
                                    : info->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(dtype);
  if (rank < 0 || r.kind == T2O_KIND_SEQUENCE) return;  // a sequence's tensors may differ in shape
  auto* shape = tensor_type->mutable_shape();
  for (int32_t i = 0; i < rank; ++i) {
    auto* d = shape->add_dim();
    auto named = symbols.find(i);
    if (named != symbols.end() && !named->second.empty()) {
      d->set_dim_param(named->second);
    } else if (dims[(size_t)i] >= 0 && named == symbols.end()) {
      d->set_dim_value(dims[(size_t)i]);
    } else {
      std::string symbol = info->name() + "_dim" + std::to_string(i);
      if ((size_t)i < alt.size() && (size_t)i < first.size()) {
        auto match = s.plan.symbol_of_sizes.find({first[(size_t)i], alt[(size_t)i]});
        if (match != s.plan.symbol_of_sizes.end()) symbol = match->second;
      }
      d->set_dim_param(symbol);
    }
  }
}

// ONNX values (outside subgraphs) whose TorchScript value varies with the dynamic axes, in graph order.
std::vector<DynamicValue> collect_dynamic_values(Session& s, const std::unordered_map<std::string, std::string>& rename) {
  std::vector<DynamicValue> out;
  for (auto* node : s.model.graph->nodes()) {
    for (auto* tv : node->outputs()) {
      const TensorInfo* type = s.types.find(tv);
      if (!type || !s.values.is_bound(tv) || type->dims_assumed) continue;  // (assumed: never seen to vary)
      if (std::none_of(type->dims.begin(), type->dims.end(), [](int64_t d) { return d < 0; })) continue;
      const auto& r = s.values.rec(s.values.handle_of(tv));
      if (r.kind != T2O_KIND_TENSOR || r.onnx.empty() || r.constant) continue;
      auto renamed = rename.find(r.onnx);
      out.push_back({renamed == rename.end() ? r.onnx : renamed->second, type->dims,
                     std::string(node->kind().toQualString()) + " at " + location_of(node)});
    }
  }
  return out;
}

// Emits one node with one output; attrs: none or one.
t2o_value emit_one(Session& s, const char* op, std::vector<t2o_value> inputs, const t2o_attr* attr = nullptr,
                   int32_t num_attrs = 1) {
  return emit_single(s.values, s.graph, op, std::move(inputs), attr, num_attrs, "returning Python numbers as a tensor");
}

t2o_attr int_attr(const char* name, const int64_t* value) {
  t2o_attr a{};
  a.struct_size = sizeof a;
  a.name = name;
  a.type = T2O_ATTR_INT;
  a.count = 1;
  a.ints = value;
  return a;
}

// A returned List[int] / List[float] / List[bool] held as an ONNX sequence of 0-d tensors: one 1-D tensor.
t2o_value number_sequence_as_tensor(Session& s, t2o_value v, const torch::jit::Value* tv) {
  auto list = tv->type()->cast<c10::ListType>();
  if (!list) return v;
  const auto kind = list->getElementType()->kind();
  if (kind != c10::TypeKind::IntType && kind != c10::TypeKind::FloatType && kind != c10::TypeKind::BoolType) return v;
  const int32_t dtype = kind == c10::TypeKind::IntType     ? onnx::TensorProto::INT64
                        : kind == c10::TypeKind::FloatType ? onnx::TensorProto::DOUBLE
                                                           : onnx::TensorProto::BOOL;
  int32_t element = s.values.rec(v).dtype;
  if (!element)
    if (const TensorInfo* t = s.types.find(tv)) element = t->dtype;
  auto st = element ? torch_dtype(element) : std::nullopt;
  if (!st) throw ExportError("internal: a returned list of numbers held as a sequence has no known element type");
  const t2o_value zero = s.values.add_initializer(at::zeros({}, at::TensorOptions().dtype(*st)), element, "zero");
  const t2o_value first = s.values.add_initializer(at::scalar_tensor(0, at::kLong), onnx::TensorProto::INT64, "first");
  const t2o_value starts = s.values.add_initializer(at::tensor(std::vector<int64_t>{1}, at::kLong), onnx::TensorProto::INT64, "starts");
  const t2o_value ends = s.values.add_initializer(at::tensor(std::vector<int64_t>{std::numeric_limits<int64_t>::max()}, at::kLong),
                                                  onnx::TensorProto::INT64, "ends");
  const int64_t zero_axis = 0, one = 1, to = dtype;
  const t2o_attr concat[2] = {int_attr("axis", &zero_axis), int_attr("new_axis", &one)};
  t2o_value padded = emit_one(s, "SequenceInsert", {v, zero, first});
  t2o_value all = emit_one(s, "ConcatFromSequence", {padded}, concat, 2);
  t2o_value out = emit_one(s, "Slice", {all, starts, ends});
  if (element != dtype) {
    const t2o_attr cast = int_attr("to", &to);
    out = emit_one(s, "Cast", {out}, &cast);
  }
  ValueRec& o = s.values.rec(out);
  o.dtype = dtype;
  o.rank = 1;
  o.dims = {-1};
  return out;
}

// A returned Python number or list of numbers as torch.onnx returns it: a number a 0-d tensor, a list
// of them (List[int] from x.tolist(), [x.size(0), n]) one 1-D tensor of its items, int64 for ints,
// bool for bools, float64 for floats (Python's float; a constant one from its double value, a run-time
// one cast). A list of numbers whose length is known only at run time (an ONNX sequence: appended to in
// a loop) is that 1-D tensor too, its items concatenated (ConcatFromSequence; a zero put first and
// sliced off again, so an empty list gives an empty tensor). Anything else is left as it is.
t2o_value numbers_as_tensor(Session& s, t2o_value v, const torch::jit::Value* tv) {
  const ValueRec r = s.values.rec(v);
  const bool number = r.kind == T2O_KIND_INT || r.kind == T2O_KIND_FLOAT || r.kind == T2O_KIND_BOOL;
  if (r.kind == T2O_KIND_SEQUENCE && tv) return number_sequence_as_tensor(s, v, tv);
  if (!number && (r.kind != T2O_KIND_LIST || r.items.empty())) return v;
  const std::vector<t2o_value> items = number ? std::vector<t2o_value>{v} : r.items;
  bool any_float = false, all_bool = true;
  for (auto item : items) {
    const auto& e = s.values.rec(item);
    if (e.kind != T2O_KIND_INT && e.kind != T2O_KIND_FLOAT && e.kind != T2O_KIND_BOOL) return v;
    any_float |= e.kind == T2O_KIND_FLOAT;
    all_bool &= e.kind == T2O_KIND_BOOL;
  }
  const int32_t dtype = all_bool ? onnx::TensorProto::BOOL : any_float ? onnx::TensorProto::DOUBLE : onnx::TensorProto::INT64;
  int64_t to = dtype, axis = 0;
  t2o_attr cast_to{}, concat_axis{};
  cast_to.struct_size = concat_axis.struct_size = sizeof(t2o_attr);
  cast_to.name = "to";
  concat_axis.name = "axis";
  cast_to.type = concat_axis.type = T2O_ATTR_INT;
  cast_to.count = concat_axis.count = 1;
  cast_to.ints = &to;
  concat_axis.ints = &axis;
  auto typed = [&](t2o_value t, int32_t rank, std::vector<int64_t> dims) {
    ValueRec& o = s.values.rec(t);
    o.dtype = dtype;
    o.rank = rank;
    o.dims = std::move(dims);
    return t;
  };
  bool dynamic = false;
  for (auto item : items) dynamic |= !s.values.rec(item).constant;
  if (!dynamic) {  // one initializer of the numbers' values
    std::vector<double> fs;
    std::vector<int64_t> is;
    for (auto item : items) {
      fs.push_back(s.values.rec(item).kind == T2O_KIND_FLOAT ? s.values.rec(item).f : (double)s.values.rec(item).i);
      is.push_back(s.values.rec(item).i);
    }
    at::Tensor t = dtype == onnx::TensorProto::DOUBLE ? at::tensor(fs, at::kDouble)
                   : dtype == onnx::TensorProto::BOOL ? at::tensor(is, at::kLong).to(at::kBool)
                                                      : at::tensor(is, at::kLong);
    if (number) t = t.reshape({});
    return typed(s.values.add_initializer(t, dtype), number ? 0 : 1, number ? std::vector<int64_t>{}
                                                                            : std::vector<int64_t>{(int64_t)items.size()});
  }
  std::vector<t2o_value> parts;
  t2o_value one = T2O_NO_VALUE;
  for (auto item : items) {
    const ValueRec e = s.values.rec(item);
    t2o_value t = e.constant && dtype == onnx::TensorProto::DOUBLE
                      ? s.values.add_initializer(at::scalar_tensor(e.kind == T2O_KIND_FLOAT ? e.f : (double)e.i, at::kDouble),
                                                 dtype)
                      : s.values.materialize(item);
    if (s.values.rec(t).dtype != dtype) t = emit_one(s, "Cast", {t}, &cast_to);
    if (!number) {
      if (one == T2O_NO_VALUE)
        one = s.values.add_initializer(at::tensor(std::vector<int64_t>{1}, at::kLong), onnx::TensorProto::INT64, "one");
      t = emit_one(s, "Reshape", {t, one});
    }
    parts.push_back(t);
  }
  if (number) return typed(parts[0], 0, {});
  t2o_value out = parts.size() == 1 ? parts[0] : emit_one(s, "Concat", parts, &concat_axis);
  return typed(out, 1, {(int64_t)items.size()});
}

// Whether a TorchScript type holds tensors only: a tensor, or lists and tuples of such (an empty value of
// it flattens to no output).
bool holds_only_tensors(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::TensorType) return true;
  if (auto list = type->cast<c10::ListType>()) return holds_only_tensors(list->getElementType());
  if (auto tuple = type->cast<c10::TupleType>()) {
    for (const auto& e : tuple->elements())
      if (!holds_only_tensors(e)) return false;
    return true;
  }
  return false;
}

}  // namespace

ConvertedModel assemble(Session& s) {
  ConvertedModel out;
  onnx::GraphProto& graph = s.graph.main();
  const auto& outs = s.model.graph->outputs();
  // Tuple and list outputs are flattened into one ONNX output per tensor, in order, as torch.onnx does.
  struct Flat {
    t2o_value handle;
    const torch::jit::Value* torch_value;  // for the recorded type; null for list items of unknown source
    // A list item's own TorchScript value (the list built by prim::ListConstruct/TupleConstruct), for
    // whether it is quantized and its grid; the output itself otherwise.
    const torch::jit::Value* quantized_source;
    const torch::jit::Value* list;  // the returned list it is an item of, if any
  };
  std::vector<Flat> flat;
  std::function<void(t2o_value, const torch::jit::Value*, const torch::jit::Value*, const torch::jit::Value*)> flatten =
      [&](t2o_value h, const torch::jit::Value* tv, const torch::jit::Value* source, const torch::jit::Value* list) {
        const auto& r = s.values.rec(h);
        bool tensor_list = r.kind == T2O_KIND_LIST && !r.items.empty() &&
                           std::any_of(r.items.begin(), r.items.end(), [&](t2o_value i) {
                             auto k = s.values.rec(i).kind;
                             return k == T2O_KIND_TENSOR || k == T2O_KIND_LIST || k == T2O_KIND_SEQUENCE ||
                                    k == T2O_KIND_OPTIONAL;
                           });
        // A list of tensors that is empty (as the example runs left it, whatever the sizes) holds no
        // tensor: PyTorch's flattened outputs, as torch.onnx compares them, have nothing for it.
        const torch::jit::Value* typed = source ? source : tv;
        if (r.kind == T2O_KIND_LIST && r.items.empty() && typed && holds_only_tensors(typed->type())) return;
        if (!tensor_list) {
          flat.push_back({h, tv, source, list});
          return;
        }
        const std::vector<t2o_value> items = r.items;
        std::vector<const torch::jit::Value*> sources(items.size(), nullptr);
        if (source) {
          const torch::jit::Node* n = source->node();
          if ((n->kind() == c10::prim::ListConstruct || n->kind() == c10::prim::TupleConstruct) &&
              n->inputs().size() == items.size())
            for (size_t i = 0; i < items.size(); ++i)
              if (s.values.is_bound(n->inputs()[i]) && s.values.handle_of(n->inputs()[i]) == items[i])
                sources[i] = n->inputs()[i];
        }
        // An item whose own TorchScript value is known (a returned tuple's element: a program's outputs)
        // is typed from the runs as an output of its own is.
        for (size_t i = 0; i < items.size(); ++i) flatten(items[i], sources[i], sources[i], list ? list : source);
      };
  for (auto* o : outs) flatten(s.values.handle_of(o), o, o, nullptr);
  if (flat.empty() && !outs.empty())
    throw ExportError("the model returns only empty lists of tensors (empty at every size the example runs used): "
                      "PyTorch's flattened outputs hold no tensor, and an ONNX model needs at least one output");

  // Names for the first outputs (or all); the rest keep their default names output_K, as torch.onnx
  // lets output_names name the first outputs only.
  const auto& given = s.options.output_names;
  if (given.size() > flat.size())
    throw ExportError("--output-names gives " + std::to_string(given.size()) + " name(s) but the model has " +
                      std::to_string(flat.size()) + " output(s)");
  // A default name a given one already took (names for the first outputs only: output_names=["output_1"]
  // with output 1's default also output_1) goes to a fresh name; a name given twice is an error.
  auto defaulted = [&](size_t k, const std::string& name) {
    return k >= given.size() || (name == "output_" + std::to_string(k) &&
                                 std::find(given.begin(), given.begin() + (long)k, name) != given.begin() + (long)k);
  };
  // The ONNX outputs: one per flattened output, or three for a quantized one in torch.onnx's form
  // (NAME_value, NAME_scale, NAME_zero_point; convert/quantized_values.hpp), made before the producers
  // of the main graph's values are listed.
  struct Out {
    std::string name;
    t2o_value handle;
    const torch::jit::Value* torch_value;  // for the recorded type (shape); null for list items, scale, zero point
    size_t k;                              // the flattened output it comes from
    bool dims_of_k;                        // takes output k's dynamic-axes names
  };
  std::vector<Out> onnx_outs;
  std::vector<std::string> quantized_boundary;  // DequantizeLinear outputs a quantized result may leave unread
  for (size_t k = 0; k < flat.size(); ++k) {
    std::string name = k < given.size() ? given[k] : "output_" + std::to_string(k);
    const torch::jit::Value* source = flat[k].quantized_source;
    const TensorInfo* t = source ? s.types.find(source) : nullptr;
    const auto kind = s.values.rec(flat[k].handle).kind;
    if (!s.options.dequantized_io && !t && flat[k].list) {
      // An item of a returned list whose items the graph does not name (built by an op or a loop):
      // whether it is quantized, and on which grid, is known of the list's first item only.
      const TensorInfo* l = s.types.find(flat[k].list);
      if (l && l->quantized)
        throw ExportError("model output " + std::to_string(k) + " is an item of a returned list of quantized tensors " +
                          "not built item by item in the graph: its grid is not known per item for torch.onnx's " +
                          "(tensor, scale, zero point); return the items one by one, or export with --dequantized-io");
    }
    if (t && t->quantized && !s.options.dequantized_io && kind == T2O_KIND_SEQUENCE)
      throw ExportError("model output " + std::to_string(k) + " is a list of quantized tensors whose length varies " +
                        "(an ONNX sequence): torch.onnx's (tensor, scale, zero point) form has no sequence of them; " +
                        "export with --dequantized-io");
    if (t && t->quantized && !s.options.dequantized_io && kind == T2O_KIND_TENSOR) {
      const std::string dequantized = s.values.rec(s.values.materialize(flat[k].handle)).onnx;
      QuantizedResult q = quantized_result(s, source, flat[k].handle, k);
      quantized_boundary.push_back(dequantized);
      onnx_outs.push_back({name + "_value", q.value, flat[k].torch_value, k, true});
      onnx_outs.push_back({name + "_scale", q.scale, nullptr, k, false});
      onnx_outs.push_back({name + "_zero_point", q.zero_point, nullptr, k, false});
      continue;
    }
    onnx_outs.push_back({name, flat[k].handle, flat[k].torch_value, k, true});
  }
  // Which ONNX names are produced by nodes of the main graph (and so may be renamed to the output's name).
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < graph.node_size(); ++i)
    for (const auto& o : graph.node(i).output()) producer[o] = i;
  std::unordered_map<std::string, std::string> rename;
  std::vector<std::string> output_names;
  for (const Out& o : onnx_outs) {
    const size_t k = o.k;
    std::string name = o.name;
    t2o_value h = numbers_as_tensor(s, o.handle, o.torch_value);
    auto kind = s.values.rec(h).kind;
    if (kind != T2O_KIND_TENSOR && kind != T2O_KIND_INT && kind != T2O_KIND_FLOAT && kind != T2O_KIND_BOOL &&
        kind != T2O_KIND_LIST && kind != T2O_KIND_SEQUENCE && kind != T2O_KIND_OPTIONAL)
      throw ExportError("model output " + std::to_string(k) + (kind == T2O_KIND_NONE ? " is None" : " is not a tensor"));
    int32_t output_dtype = s.values.rec(h).dtype;
    if (o.torch_value)
      if (const TensorInfo* t = s.types.find(o.torch_value)) output_dtype = t->dtype ? t->dtype : output_dtype;
    if (is_complex_dtype(output_dtype))
      throw ExportError("model output " + std::to_string(k) + " is a complex tensor: ONNX has no complex type; return "
                        "torch.view_as_real(z) (or z.real, z.imag, z.abs()) instead");
    t2o_value t = s.values.materialize(h);
    std::string inner = s.values.rec(t).onnx;
    if (s.graph.name_taken(name) && !(producer.count(inner) && inner == name)) {
      // The wanted name is taken (e.g. an input); only a fresh name works.
      bool is_input = std::find(s.input_names.begin(), s.input_names.end(), name) != s.input_names.end();
      if (defaulted(k, name) && !is_input) name = s.graph.unique_name(name);
      else if (!given.empty() || is_input)
        throw ExportError("output name '" + name + "' is already used by an input or another output");
    }
    s.graph.reserve_name(name);
    if (producer.count(inner) && !rename.count(inner)) {
      rename[inner] = name;
    } else {
      auto* n = graph.add_node();
      n->set_op_type("Identity");
      n->set_name(s.graph.unique_name("Identity"));
      n->add_input(rename.count(inner) ? rename[inner] : inner);
      n->add_output(name);
      ++s.graph.onnx_nodes;
    }
    output_names.push_back(name);
    auto* info = graph.add_output();
    info->set_name(name);
    static const std::map<int64_t, std::string> none;
    fill_value_info(s, info, t, o.torch_value,
                    o.dims_of_k && k < s.plan.output_symbols.size() ? s.plan.output_symbols[k] : none);
  }
  if (!s.options.dynamic_axes.empty()) out.dynamic_values = collect_dynamic_values(s, rename);
  if (!rename.empty()) {
    // Outputs renamed: every graph that reads them, subgraphs included (outer-scope reads).
    std::function<void(onnx::GraphProto&)> apply = [&](onnx::GraphProto& g) {
      for (int i = 0; i < g.node_size(); ++i) {
        auto* n = g.mutable_node(i);
        for (auto& name : *n->mutable_input()) {
          auto it = rename.find(name);
          if (it != rename.end()) name = it->second;
        }
        for (auto& name : *n->mutable_output()) {
          auto it = rename.find(name);
          if (it != rename.end()) name = it->second;
        }
        for (auto& attr : *n->mutable_attribute())
          if (attr.has_g()) apply(*attr.mutable_g());
      }
      for (auto& o : *g.mutable_output()) {
        auto it = rename.find(o.name());
        if (it != rename.end() && &g != &graph) o.set_name(it->second);
      }
    };
    apply(graph);
  }
  if (!quantized_boundary.empty()) {
    // A quantized result taken from QuantizeLinear → DequantizeLinear (already_quantized) leaves the
    // DequantizeLinear unread when nothing else used the dequantized value: remove it, and whatever
    // main-graph node only it read (nodes with subgraphs stay: their reads are not counted here).
    std::unordered_map<std::string, int> reads;
    std::function<void(const onnx::GraphProto&)> count = [&](const onnx::GraphProto& g) {
      for (const auto& n : g.node()) {
        for (const auto& i : n.input()) ++reads[i];
        for (const auto& attr : n.attribute())
          if (attr.has_g()) count(attr.g());
      }
      for (const auto& o : g.output()) ++reads[o.name()];
    };
    count(graph);
    std::vector<std::string> work;
    for (const auto& name : quantized_boundary) work.push_back(rename.count(name) ? rename[name] : name);
    while (!work.empty()) {
      const std::string name = work.back();
      work.pop_back();
      if (name.empty() || reads[name] != 0) continue;  // "": an omitted optional input
      int found = -1;
      for (int i = 0; i < graph.node_size() && found < 0; ++i)
        for (const auto& o : graph.node(i).output())
          if (o == name) found = i;
      if (found < 0) continue;
      const onnx::NodeProto& n = graph.node(found);
      bool unread = true, subgraphs = false;
      for (const auto& o : n.output()) unread = unread && reads[o] == 0;
      for (const auto& attr : n.attribute()) subgraphs = subgraphs || attr.has_g() || attr.graphs_size() > 0;
      if (!unread || subgraphs) continue;
      for (const auto& i : n.input()) {
        if (--reads[i] == 0) work.push_back(i);
      }
      graph.mutable_node()->DeleteSubrange(found, 1);
      --s.graph.onnx_nodes;
    }
  }
  for (size_t i = 0; i < s.input_names.size(); ++i) {
    const auto* tv = s.model.graph->inputs()[i];
    auto quantized = s.quantized_inputs.find(i);
    if (quantized != s.quantized_inputs.end()) {  // torch.onnx's (tensor, scale, zero point)
      static const std::map<int64_t, std::string> none;
      const auto& q = quantized->second;
      auto* info = graph.add_input();
      info->set_name(q.value);
      fill_value_info(s, info, q.value_handle, tv, s.plan.input_symbols[i]);
      info = graph.add_input();
      info->set_name(q.scale);
      fill_value_info(s, info, q.scale_handle, nullptr, none);
      info = graph.add_input();
      info->set_name(q.zero_point);
      fill_value_info(s, info, q.zero_point_handle, nullptr, none);
      continue;
    }
    auto* info = graph.add_input();
    info->set_name(s.input_names[i]);
    fill_value_info(s, info, s.values.handle_of(tv), tv, s.plan.input_symbols[i]);
  }

  onnx::ModelProto& model = out.model;
  model.set_ir_version(ir_version_for_opset(s.options.opset));
  model.set_producer_name("torch2onnx");
  model.set_producer_version(s.options.producer_version);
  for (const auto& [key, value] : s.options.metadata_props) {
    auto* prop = model.add_metadata_props();
    prop->set_key(key);
    prop->set_value(value);
  }
  for (const auto& [domain, version] : s.graph.opsets()) {
    auto* op = model.add_opset_import();
    op->set_domain(domain);
    op->set_version(version);
  }
  graph.set_name("main_graph");
  auto& initializers = s.values.initializers();
  // A graph input of an initializer's type and shape (after the model's own inputs, as torch.onnx
  // lists its parameters): the weights with --no-weights, every initializer with
  // --keep-initializers-as-inputs, and the stand-in of a streamed one (below).
  auto add_input_for = [&](const Initializer& init) {
    auto* in = graph.add_input();
    in->set_name(init.name);
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(init.dtype);
    auto* shape = tt->mutable_shape();
    for (auto d : init.dims) shape->add_dim()->set_dim_value(d);
  };
  size_t weight_inputs = 0;
  for (auto& init : initializers) {
    if (!s.options.export_params && init.weight) {
      add_input_for(init);
      ++weight_inputs;
      init.tensor = at::Tensor();
      continue;
    }
    auto* t = graph.add_initializer();
    t->set_name(init.name);
    t->set_data_type(init.dtype);
    for (auto d : init.dims) t->add_dims(d);
    size_t n = init.tensor.nbytes();
    out.stats.initializer_bytes += n;
    if (n >= kStreamThresholdBytes) {
      // Large: the bytes stay in the tensor until the writer streams them to the file; meanwhile a
      // graph input of the same type and shape stands in for it.
      graph.mutable_initializer()->RemoveLast();
      add_input_for(init);
      out.streamed.push_back({init.name, init.dtype, init.dims, init.tensor, s.options.keep_initializers_as_inputs});
    } else {
      deferred::materialize(init.tensor);
      t->set_raw_data(init.tensor.data_ptr(), n);
      if (s.options.keep_initializers_as_inputs) add_input_for(init);
    }
    init.tensor = at::Tensor();
  }
  out.stats.initializers = initializers.size() - weight_inputs;
  s.values.release();
  *model.mutable_graph() = std::move(graph);
  if (s.options.modules_as_functions)
    extract_local_functions(model, s.graph, s.options, s.model.module.type()->name()->qualifiedName());
  out.stats.torch_nodes = s.torch_nodes;
  out.stats.onnx_nodes = s.graph.onnx_nodes;
  out.stats.fallback_nodes = s.fallback_nodes;
  out.provenance = std::move(s.graph.provenance());
  return out;
}

std::string ConvertedModel::origin_of(const std::string& onnx_node) const {
  auto it = provenance.find(onnx_node);
  return it == provenance.end() ? std::string() : it->second.describe();
}

void annotate_origins(ConvertedModel& conv) {
  std::function<void(onnx::GraphProto&)> apply = [&](onnx::GraphProto& g) {
    for (auto& n : *g.mutable_node()) {
      auto it = conv.provenance.find(n.name());
      if (it != conv.provenance.end()) n.set_doc_string(it->second.describe());
      for (auto& attr : *n.mutable_attribute())
        if (attr.has_g()) apply(*attr.mutable_g());
    }
  };
  apply(*conv.model.mutable_graph());
  for (auto& f : *conv.model.mutable_functions())  // --export-modules-as-functions
    for (auto& n : *f.mutable_node()) {
      auto it = conv.provenance.find(n.name());
      if (it != conv.provenance.end()) n.set_doc_string(it->second.describe());
    }
}

std::vector<std::string> ConvertedModel::specialization_warnings() const {
  std::vector<std::string> out;
  std::unordered_map<std::string, const onnx::TypeProto*> inferred;
  for (const auto& vi : model.graph().value_info()) inferred[vi.name()] = &vi.type();
  for (const auto& vi : model.graph().output()) inferred[vi.name()] = &vi.type();
  for (const auto& v : dynamic_values) {
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

}  // namespace t2o::core
