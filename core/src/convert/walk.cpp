#include "convert/walk.hpp"

#include "common/locations.hpp"
#include "convert/quantized_values.hpp"
#include "common/view_ops.hpp"
#include "prepare/dict_writes.hpp"
#include "torch2onnx/core/dtype_table.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>

namespace t2o::core {

namespace {

std::string qual(const torch::jit::Node* node) { return node->kind().toQualString(); }

// What a refusal says of a node no pack converts: the resolution's message, or for a dict write the
// prepare pass left, why it was left.
std::string missing_message(const torch::jit::Node* node, const Resolution& r) {
  if (r.reason == Unconvertible::NoSymbolic) {
    std::string why = dict_write_refusal(node);
    if (!why.empty()) return why;
  }
  return r.message;
}

void bind_graph_inputs(Session& s) {
  const auto& given = s.options.input_names;
  auto& graph = *s.model.graph;
  size_t n = graph.inputs().size();
  if (!given.empty() && given.size() != n)
    throw ExportError("--input-names gives " + std::to_string(given.size()) + " name(s) but forward() takes " +
                      std::to_string(n));
  for (size_t i = 0; i < n; ++i) {
    std::string name = given.empty() ? s.model.argument_names[i] : given[i];
    auto* tv = graph.inputs()[i];
    const TensorInfo* quantized = s.types.find(tv);
    if (quantized && quantized->quantized && !s.options.dequantized_io) {
      s.input_names.push_back(name);  // three ONNX inputs named after it (assembly lists them)
      bind_quantized_input(s, i, tv, name);
      continue;
    }
    if (!s.graph.reserve_name(name)) throw ExportError("input name '" + name + "' is used twice");
    s.input_names.push_back(name);
    ValueRec r;
    r.kind = T2O_KIND_TENSOR;
    r.onnx = name;
    const TensorInfo* info = s.types.find(tv);
    if (!info) throw ExportError("internal: graph input " + name + " has no recorded type");
    r.dtype = info->dtype;
    r.rank = (int32_t)info->dims.size();
    r.dims = info->dims;
    s.values.bind(tv, s.values.add(std::move(r)));
  }
}

// Lists every op no symbolic converts, with counts and first locations, in one error.
void check_convertible(Session& s) {
  struct Missing {
    size_t count = 0;
    std::string first_location;
    std::string message;
  };
  std::map<std::string, Missing> missing;
  std::function<void(torch::jit::Block*)> scan = [&](torch::jit::Block* block) {
    for (auto* node : block->nodes()) {
      if (node->kind() == c10::prim::Constant) continue;
      const auto& r = s.resolver.resolve(node);
      if (!r.symbolic) {
        auto& m = missing[qual(node)];
        if (m.count++ == 0) {
          m.first_location = location_of(node);
          m.message = missing_message(node, r);
        }
      }
      for (auto* b : node->blocks()) scan(b);
    }
  };
  scan(s.model.graph->block());
  if (missing.empty()) return;
  std::vector<std::pair<std::string, Missing>> sorted(missing.begin(), missing.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  std::ostringstream msg;
  msg << "cannot convert " << sorted.size() << " op kind(s) at opset " << s.options.opset << ": ";
  for (size_t i = 0; i < sorted.size(); ++i) {
    const auto& [kind, m] = sorted[i];
    if (i) msg << "; ";
    msg << kind << " (" << m.count << " node" << (m.count == 1 ? "" : "s") << ", first at " << m.first_location << ", "
        << m.message << ")";
  }
  throw ExportError(msg.str());
}

// An in-place op left after mutation removal writes into a tensor that others still read (a view
// of a base tensor, or a value used later). A symbolic can only return a new tensor, so the write
// would be lost and the model silently wrong: refuse instead.
void refuse_lost_writes(torch::jit::Node* node) {
  auto schema = node->maybeSchema();
  if (!schema || !schema->is_mutable()) return;
  const auto& args = schema->arguments();
  for (size_t i = 0; i < args.size() && i < node->inputs().size(); ++i) {
    if (!args[i].alias_info() || !args[i].alias_info()->isWrite()) continue;
    auto* target = node->input(i);
    std::string producer = qual(target->node());
    auto used_after = [&](torch::jit::Value* v) {
      return std::any_of(v->uses().begin(), v->uses().end(),
                         [&](const torch::jit::Use& u) { return u.user != node && u.user->isAfter(node); });
    };
    // A write into a view matters when the tensor it views is read afterwards (walk up the view chain).
    torch::jit::Value* base = target;
    while (is_view_of_input(base->node())) base = base->node()->input(0);
    bool view = base != target && used_after(base);
    bool read_later = used_after(target);
    if (view || read_later) {
      std::string what = "in-place write into " +
                         (view ? "a view (" + producer + ") of another tensor" : std::string("a tensor read later")) +
                         " cannot be exported (the write would be lost)";
      throw NodeError(qual(node) + " at " + location_of(node) + ": " + what, what, false);
    }
  }
}

// The op itself, as torch.onnx's ONNX_ATEN_FALLBACK / ONNX_FALLTHROUGH do: tensors (and run-time
// scalars) become inputs, constant arguments become attributes named after the schema's arguments.
void emit_fallback(Session& s, torch::jit::Node* node) {
  const bool aten = s.options.operator_export_type == OperatorExportType::AtenFallback ||
                    s.options.operator_export_type == OperatorExportType::Aten;
  const std::string op = qual(node);
  const std::string ns = node->kind().ns().toUnqualString();
  const std::string name = node->kind().toUnqualString();
  auto schema = node->maybeSchema();
  auto& values = s.values;
  auto* n = s.graph.current().add_node();
  n->set_op_type(aten ? "ATen" : name);
  n->set_domain(aten ? "org.pytorch.aten" : ns);
  s.graph.import_domain(n->domain(), 1);
  n->set_name(s.graph.unique_name(aten ? "ATen_" + name : name));
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
    t2o_value h = values.handle_of(node->input(i));
    const ValueRec r = values.rec(h);
    if (r.kind == T2O_KIND_TENSOR || r.kind == T2O_KIND_SEQUENCE ||
        (!r.constant && (r.kind == T2O_KIND_INT || r.kind == T2O_KIND_FLOAT || r.kind == T2O_KIND_BOOL))) {
      n->add_input(values.rec(values.materialize(h)).onnx);
      continue;
    }
    if (r.kind == T2O_KIND_LIST) {
      bool numbers = true, any_float = false;
      for (auto item : r.items) {
        const auto& e = values.rec(item);
        numbers &= e.constant && (e.kind == T2O_KIND_INT || e.kind == T2O_KIND_FLOAT || e.kind == T2O_KIND_BOOL);
        any_float |= e.kind == T2O_KIND_FLOAT;
      }
      if (numbers) {
        auto* a = add_attr(arg);
        a->set_type(any_float ? onnx::AttributeProto::FLOATS : onnx::AttributeProto::INTS);
        for (auto item : r.items) {
          if (any_float) a->add_floats((float)values.rec(item).f);
          else a->add_ints(values.rec(item).i);
        }
      } else {
        for (auto item : r.items) n->add_input(values.rec(values.materialize(item)).onnx);
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
      throw ExportError(op + " at " + location_of(node) + ": cannot fall back: output of type " +
                        out->type()->annotation_str() + " is not a tensor");
    std::string onnx_name = s.graph.unique_name(n->name() + "_out");
    n->add_output(onnx_name);
    values.bind(out, values.placeholder(out, onnx_name));
  }
  ++s.graph.onnx_nodes;
  ++s.fallback_nodes;
  s.graph.record_origin(n->name(), {op, location_of(node), "fallback", node});
}

// --operator-export-type aten (ONNX_ATEN): an aten:: op whose results are all tensors, without blocks.
// Sizes (aten::size, int results), list and tuple plumbing and control flow convert as usual, so the
// ATen nodes get their tensor arguments and constant attributes as the fallback gives them.
bool exported_as_aten(const torch::jit::Node* node) {
  if (node->kind().ns() != c10::namespaces::aten || !node->blocks().empty() || node->outputs().empty()) return false;
  for (const auto* out : node->outputs())
    if (kind_of_type(out->type()) != T2O_KIND_TENSOR) return false;
  return true;
}

void unconvertible(Session& s, torch::jit::Node* node, Unconvertible reason, const std::string& message,
                   std::optional<int64_t> min_opset) {
  if (!s.check_mode) {
    emit_fallback(s, node);
    return;
  }
  bool downstream = std::any_of(node->inputs().begin(), node->inputs().end(),
                                [&](torch::jit::Value* v) { return s.tainted.count(v) > 0; });
  // A symbolic that failed on placeholder inputs says nothing about the model: only the first failure counts.
  if (!downstream || reason == Unconvertible::NoSymbolic || reason == Unconvertible::NeedsOpset) {
    NodeFailure f;
    f.op = qual(node);
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
    s.failures.push_back(std::move(f));
  }
  // Placeholders with the recorded types let the rest of the graph be checked.
  for (auto* out : node->outputs()) {
    s.tainted.insert(out);
    t2o_kind kind = kind_of_type(out->type());
    bool onnx = kind == T2O_KIND_TENSOR || kind == T2O_KIND_INT || kind == T2O_KIND_FLOAT || kind == T2O_KIND_BOOL;
    if (onnx) {
      s.values.bind(out, s.values.placeholder(out, s.graph.unique_name("unconverted")));
    } else {
      ValueRec r;
      r.kind = T2O_KIND_OTHER;
      s.values.bind(out, s.values.add(std::move(r)));
    }
  }
}

// Complex tensors are (real, imaginary) pairs in ONNX (a trailing dim of 2): only a symbolic that
// declares T2O_SYMBOLIC_COMPLEX_PAIRS reads them so; any other would compute on the pairs as if real.
void refuse_complex_inputs(Session& s, torch::jit::Node* node, const t2o::registry::Symbolic* symbolic) {
  if (symbolic->flags & T2O_SYMBOLIC_COMPLEX_PAIRS) return;
  for (size_t i = 0; i < node->inputs().size(); ++i) {
    const torch::jit::Value* v = node->input(i);
    int32_t dtype = 0;
    if (const TensorInfo* info = s.types.find(v)) dtype = info->dtype;
    if (!dtype && s.values.is_bound(v)) dtype = s.values.rec(s.values.handle_of(v)).dtype;
    if (!is_complex_dtype(dtype)) continue;
    auto schema = node->maybeSchema();
    std::string arg = schema && i < schema->arguments().size() ? "'" + schema->arguments()[i].name() + "'"
                                                                : std::to_string(i);
    std::string what = "input " + arg + " is a complex tensor (" + (dtype == T2O_DTYPE_COMPLEX64 ? "complex64" : "complex128") +
                       "): ONNX has no complex type and this op's symbolic does not take complex values as (real, "
                       "imaginary) pairs; go back to real first (torch.view_as_real, .real, .imag, .abs(), .angle(), "
                       "irfft/ifft)";
    throw NodeError(qual(node) + " at " + location_of(node) + ": unsupported arguments: " + what, what, true);
  }
}

// An ONNX optional (an Optional[Tensor] that is None on some run-time path, opset 15+) reaches only
// symbolics that declare T2O_SYMBOLIC_OPTIONALS (control flow, `is None`, unchecked_cast, tuples); any
// other would read it as the tensor it may not hold.
void refuse_optional_inputs(Session& s, torch::jit::Node* node, const t2o::registry::Symbolic* symbolic) {
  if (symbolic->flags & T2O_SYMBOLIC_OPTIONALS) return;
  for (size_t i = 0; i < node->inputs().size(); ++i) {
    const torch::jit::Value* v = node->input(i);
    if (!s.values.is_bound(v) || s.values.rec(s.values.handle_of(v)).kind != T2O_KIND_OPTIONAL) continue;
    auto schema = node->maybeSchema();
    std::string arg = schema && i < schema->arguments().size() ? "'" + schema->arguments()[i].name() + "'"
                                                                : std::to_string(i);
    std::string what = "input " + arg + " is an Optional that is None on some run-time path (an ONNX optional) and "
                       "this op takes tensors; test it first (`if v is not None:`) so it is unwrapped";
    throw NodeError(qual(node) + " at " + location_of(node) + ": unsupported arguments: " + what, what, true);
  }
}

void convert_node(Session& s, torch::jit::Node* node, const t2o::registry::Symbolic* symbolic) {
  refuse_complex_inputs(s, node, symbolic);
  refuse_optional_inputs(s, node, symbolic);
  t2o_ctx ctx;
  ctx.session = &s;
  ctx.node = node;
  ctx.symbolic = symbolic;
  ctx.location = location_of(node);
  if (!symbolic->domain.empty() && s.graph.opset_of(symbolic->domain) == 0)
    s.graph.import_domain(symbolic->domain, symbolic->since_opset);
  onnx::GraphProto& graph = s.graph.current();
  int before = graph.node_size();
  size_t depth = s.graph.depth();
  t2o_status status = symbolic->fn(Session::host_api(), &ctx, symbolic->user_data);
  // Subgraphs a symbolic left open (it failed half-way) are discarded.
  while (s.graph.depth() > depth) s.graph.close_subgraph();
  if (ctx.nested_error) std::rethrow_exception(ctx.nested_error);
  const std::string pack = s.resolver.pack_of(symbolic);
  if (status != T2O_OK) {
    graph.mutable_node()->DeleteSubrange(before, graph.node_size() - before);
    std::string what = ctx.error.empty() ? "failed without a message" : ctx.error;
    std::string file = s.resolver.pack_file_of(symbolic);  // so a failing vendor pack is easy to find
    throw NodeError(qual(node) + " at " + ctx.location + " (pack " + pack + (file.empty() ? "" : ", " + file) +
                        ", since opset " + std::to_string(symbolic->since_opset) + "): " +
                        (status == T2O_UNSUPPORTED ? "unsupported arguments: " : "") + what,
                    what, status == T2O_UNSUPPORTED);
  }
  for (size_t k = 0; k < node->outputs().size(); ++k) {
    auto* out = node->outputs()[k];
    if (!s.values.is_bound(out) && out->hasUses()) {
      graph.mutable_node()->DeleteSubrange(before, graph.node_size() - before);
      throw NodeError(qual(node) + " at " + ctx.location + " (pack " + pack + "): the symbolic did not bind output " +
                          std::to_string(k),
                      "the symbolic did not bind output " + std::to_string(k), false);
    }
  }
  if (!s.options.dequantized_io) follow_run_time_grids(s, node);
  requantize_outputs(s, node);
  // Remember who made each new ONNX node: checker errors and verify name the TorchScript node.
  for (int i = before; i < graph.node_size(); ++i)
    s.graph.record_origin(graph.node(i).name(), {qual(node), ctx.location, pack, node});
}

}  // namespace

void convert_block(Session& s, torch::jit::Block* block) {
  const bool top = block == s.model.graph->block();
  size_t total = 0, done = 0;
  if (top && s.options.progress)
    for (auto* node : block->nodes()) total += node->kind() != c10::prim::Constant;
  for (auto* node : block->nodes()) {
    if (node->kind() == c10::prim::Constant) {
      s.values.add_constant(node);
      continue;
    }
    if (top && s.options.progress && ++done % 256 == 0) s.options.progress("convert", done, total);
    ++s.torch_nodes;
    if (s.options.operator_export_type == OperatorExportType::Aten && !s.check_mode && exported_as_aten(node)) {
      emit_fallback(s, node);
      continue;
    }
    const auto& resolution = s.resolver.resolve(node);
    if (!resolution.symbolic) {
      unconvertible(s, node, resolution.reason, missing_message(node, resolution),
                    resolution.reason == Unconvertible::NeedsOpset ? resolution.min_opset : std::nullopt);
      continue;
    }
    try {
      refuse_lost_writes(node);
      convert_node(s, node, resolution.symbolic);
    } catch (const NodeError& e) {
      if (!s.check_mode && !(e.unsupported && s.options.operator_export_type != OperatorExportType::Onnx)) throw;
      unconvertible(s, node, e.unsupported ? Unconvertible::SymbolicRefused : Unconvertible::SymbolicFailed,
                    e.message, std::nullopt);
    }
  }
}

void convert_graph(Session& s) {
  bind_graph_inputs(s);
  if (!s.check_mode && s.options.operator_export_type == OperatorExportType::Onnx) check_convertible(s);
  convert_block(s, s.model.graph->block());
}

void scan_missing(Session& s) {
  std::function<void(torch::jit::Block*)> scan = [&](torch::jit::Block* block) {
    for (auto* node : block->nodes()) {
      if (node->kind() == c10::prim::Constant) continue;
      ++s.torch_nodes;
      const auto& r = s.resolver.resolve(node);
      if (!r.symbolic) unconvertible(s, node, r.reason, missing_message(node, r), r.min_opset);
      for (auto* b : node->blocks()) scan(b);
    }
  };
  scan(s.model.graph->block());
}

}  // namespace t2o::core
