// The host side of the C ABI: the function table symbolics call. Every function catches everything:
// no exception crosses the boundary; failures become a status plus a message on the context.
#include "common/deferred_tensors.hpp"
#include "common/onnx_compat.hpp"
#include "convert/session.hpp"
#include "convert/walk.hpp"
#include "convert/onnx_types.hpp"
#include "convert/quantized_values.hpp"
#include "common/torch_compat.hpp"
#include "torch2onnx/core/dtype_table.hpp"

#include <cstring>
#include <unordered_set>

namespace t2o::core {
namespace {

t2o_status fail(t2o_ctx* ctx, const std::string& message) {
  ctx->error = message;
  return T2O_ERROR;
}

// Runs body; turns any exception into an error status on ctx.
template <typename F>
t2o_status guarded(t2o_ctx* ctx, F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return fail(ctx, error_reason(e.what()));
  } catch (...) {
    return fail(ctx, "unknown error in the host");
  }
}

t2o_status check_handle(t2o_ctx* ctx, t2o_value v) {
  if (!ctx->session->values.valid(v)) return fail(ctx, "invalid value handle " + std::to_string(v));
  return T2O_OK;
}

// ONNX 1.12's NodeProto has no metadata_props (ONNX 1.16 added it as field 9, a repeated
// StringStringEntryProto): common/onnx_compat.hpp writes the entry as that field among the node's
// unknown fields there, so the serialized node is what a newer ONNX writes and newer readers (ONNX
// Runtime, onnx >= 1.16) see it; with a newer ONNX, in the field itself.
void add_node_metadata(Session& s, t2o_value node_output, const std::string& key, const std::string& value) {
  const std::string& name = s.values.rec(node_output).onnx;
  onnx::GraphProto& graph = s.graph.current();
  for (int i = graph.node_size() - 1; i >= 0; --i) {
    onnx::NodeProto* node = graph.mutable_node(i);
    for (const auto& out : node->output()) {
      if (out != name) continue;
      onnx_compat::add_node_metadata_prop(*node, key, value);
      return;
    }
  }
  throw std::runtime_error("node_add_metadata: no emitted node produced this value");
}

// ONNX shape inference knows nothing of custom-domain ops: the type a symbolic gives such a node's
// output is recorded as the output's value_info (e.g. torch.onnx.ops.symbolic's declared dtype/shape).
void type_custom_domain_output(Session& s, t2o_value v) {
  const ValueRec& r = s.values.rec(v);
  if (r.onnx.empty() || r.dtype == 0 || r.rank < 0 || r.kind != T2O_KIND_TENSOR) return;
  onnx::GraphProto& graph = s.graph.current();
  // The node is one the symbolic just emitted: look at the last few only (typed() is called often).
  for (int i = graph.node_size() - 1; i >= 0 && i >= graph.node_size() - 64; --i) {
    const onnx::NodeProto& node = graph.node(i);
    bool produced = false;
    for (const auto& out : node.output()) produced = produced || out == r.onnx;
    if (!produced) continue;
    if (node.domain().empty() || node.domain() == "ai.onnx") return;
    onnx::ValueInfoProto* info = nullptr;
    for (auto& vi : *graph.mutable_value_info())
      if (vi.name() == r.onnx) info = &vi;
    if (!info) info = graph.add_value_info();
    info->Clear();
    info->set_name(r.onnx);
    auto* tensor_type = info->mutable_type()->mutable_tensor_type();
    tensor_type->set_elem_type(r.dtype);
    auto* shape = tensor_type->mutable_shape();
    for (int64_t d : r.dims) {
      auto* dim = shape->add_dim();
      if (d >= 0) dim->set_dim_value(d);
    }
    return;
  }
}

const char* h_node_kind(t2o_ctx* ctx) { return ctx->node->kind().toQualString(); }

const char* h_node_schema(t2o_ctx* ctx) {
  try {
    if (auto schema = ctx->node->maybeSchema()) {
      std::stringstream ss;
      ss << *schema;
      ctx->borrowed.push_back(ss.str());
      return ctx->borrowed.back().c_str();
    }
  } catch (...) {
  }
  return "";
}

const char* h_node_location(t2o_ctx* ctx) { return ctx->location.c_str(); }
int32_t h_num_inputs(t2o_ctx* ctx) { return (int32_t)ctx->node->inputs().size(); }
int32_t h_num_outputs(t2o_ctx* ctx) { return (int32_t)ctx->node->outputs().size(); }

t2o_value h_input(t2o_ctx* ctx, int32_t index) {
  try {
    if (index < 0 || (size_t)index >= ctx->node->inputs().size()) return T2O_NO_VALUE;
    return ctx->session->values.handle_of(ctx->node->input(index));
  } catch (const std::exception& e) {
    ctx->error = error_reason(e.what());
    return T2O_NO_VALUE;
  }
}

t2o_value h_output(t2o_ctx* ctx, int32_t index) {
  try {
    if (index < 0 || (size_t)index >= ctx->node->outputs().size()) return T2O_NO_VALUE;
    return ctx->session->values.type_handle_of(ctx->node->output(index));
  } catch (const std::exception& e) {
    ctx->error = error_reason(e.what());
    return T2O_NO_VALUE;
  }
}

int32_t h_value_kind(t2o_ctx* ctx, t2o_value v) {
  return ctx->session->values.valid(v) ? ctx->session->values.rec(v).kind : T2O_KIND_OTHER;
}
int32_t h_value_dtype(t2o_ctx* ctx, t2o_value v) { return ctx->session->values.valid(v) ? ctx->session->values.rec(v).dtype : 0; }
int32_t h_value_rank(t2o_ctx* ctx, t2o_value v) { return ctx->session->values.valid(v) ? ctx->session->values.rec(v).rank : -1; }
int64_t h_value_dim(t2o_ctx* ctx, t2o_value v, int32_t axis) {
  if (!ctx->session->values.valid(v)) return -1;
  const auto& r = ctx->session->values.rec(v);
  if (r.rank < 0) return -1;
  if (axis < 0) axis += r.rank;
  if (axis < 0 || axis >= r.rank) return -1;
  return r.dims[(size_t)axis];
}
int32_t h_value_is_constant(t2o_ctx* ctx, t2o_value v) {
  if (!ctx->session->values.valid(v)) return 0;
  const auto& r = ctx->session->values.rec(v);
  if (r.kind == T2O_KIND_LIST) {
    for (auto item : r.items)
      if (!h_value_is_constant(ctx, item)) return 0;
    return 1;
  }
  return r.constant ? 1 : 0;
}

t2o_status h_value_int(t2o_ctx* ctx, t2o_value v, int64_t* out) {
  return guarded(ctx, [&]() -> t2o_status {
    if (check_handle(ctx, v)) return T2O_ERROR;
    const auto& r = ctx->session->values.rec(v);
    if (!r.constant) return fail(ctx, "expected a constant int, got a value computed at run time");
    if (r.kind == T2O_KIND_INT || r.kind == T2O_KIND_BOOL) { *out = r.i; return T2O_OK; }
    if (r.kind == T2O_KIND_FLOAT) { *out = (int64_t)r.f; return T2O_OK; }
    if (r.kind == T2O_KIND_TENSOR && r.tensor.defined() && r.tensor.numel() == 1) {
      *out = r.tensor.item().toLong();
      return T2O_OK;
    }
    return fail(ctx, "expected a constant int");
  });
}

t2o_status h_value_float(t2o_ctx* ctx, t2o_value v, double* out) {
  return guarded(ctx, [&]() -> t2o_status {
    if (check_handle(ctx, v)) return T2O_ERROR;
    const auto& r = ctx->session->values.rec(v);
    if (!r.constant) return fail(ctx, "expected a constant number, got a value computed at run time");
    if (r.kind == T2O_KIND_FLOAT) { *out = r.f; return T2O_OK; }
    if (r.kind == T2O_KIND_INT || r.kind == T2O_KIND_BOOL) { *out = (double)r.i; return T2O_OK; }
    if (r.kind == T2O_KIND_TENSOR && r.tensor.defined() && r.tensor.numel() == 1) {
      *out = r.tensor.item().toDouble();
      return T2O_OK;
    }
    return fail(ctx, "expected a constant number");
  });
}

t2o_status h_value_string(t2o_ctx* ctx, t2o_value v, const char** out) {
  if (check_handle(ctx, v)) return T2O_ERROR;
  const auto& r = ctx->session->values.rec(v);
  if (r.kind != T2O_KIND_STRING) return fail(ctx, "expected a constant string");
  *out = r.s.c_str();
  return T2O_OK;
}

t2o_status h_value_list_size(t2o_ctx* ctx, t2o_value v, int64_t* out) {
  if (check_handle(ctx, v)) return T2O_ERROR;
  const auto& r = ctx->session->values.rec(v);
  if (r.kind != T2O_KIND_LIST) return fail(ctx, "expected a list");
  *out = (int64_t)r.items.size();
  return T2O_OK;
}

t2o_status h_value_list_item(t2o_ctx* ctx, t2o_value v, int64_t index, t2o_value* out) {
  if (check_handle(ctx, v)) return T2O_ERROR;
  const auto& r = ctx->session->values.rec(v);
  if (r.kind != T2O_KIND_LIST) return fail(ctx, "expected a list");
  if (index < 0 || (size_t)index >= r.items.size())
    return fail(ctx, "list index " + std::to_string(index) + " out of range (size " + std::to_string(r.items.size()) + ")");
  *out = r.items[(size_t)index];
  return T2O_OK;
}

t2o_status h_value_tensor_data(t2o_ctx* ctx, t2o_value v, const void** data, size_t* nbytes) {
  if (check_handle(ctx, v)) return T2O_ERROR;
  const auto& r = ctx->session->values.rec(v);
  if (r.kind != T2O_KIND_TENSOR || !r.constant || !r.tensor.defined())
    return fail(ctx, "expected a constant tensor");
  deferred::materialize(r.tensor);  // a folded weight's values, computed on first read
  *data = r.tensor.data_ptr();
  *nbytes = r.tensor.nbytes();
  return T2O_OK;
}

t2o_status h_value_set_type(t2o_ctx* ctx, t2o_value v, int32_t dtype, int32_t rank, const int64_t* dims) {
  if (check_handle(ctx, v)) return T2O_ERROR;
  auto& r = ctx->session->values.rec(v);
  if (r.kind != T2O_KIND_TENSOR && r.kind != T2O_KIND_SEQUENCE && r.kind != T2O_KIND_OPTIONAL)
    return fail(ctx, "value_set_type: not a tensor, sequence or optional");
  r.dtype = dtype;
  r.rank = rank;
  r.dims.assign(dims, dims + (rank > 0 ? rank : 0));
  return guarded(ctx, [&]() -> t2o_status {
    type_custom_domain_output(*ctx->session, v);
    return T2O_OK;
  });
}

t2o_status h_make_tensor(t2o_ctx* ctx, int32_t dtype, const int64_t* dims, int32_t rank, const void* data,
                         size_t nbytes, t2o_value* out) {
  return guarded(ctx, [&]() -> t2o_status {
    auto st = torch_dtype(dtype);
    if (!st) return fail(ctx, "make_tensor: element type " + std::to_string(dtype) + " is not supported");
    if (rank < 0) return fail(ctx, "make_tensor: negative rank");
    std::vector<int64_t> shape(dims, dims + rank);
    int64_t numel = 1;
    for (auto d : shape) {
      if (d < 0) return fail(ctx, "make_tensor: negative dimension");
      numel *= d;
    }
    auto t = at::empty(shape, at::TensorOptions().dtype(*st));
    if ((size_t)t.nbytes() != nbytes)
      return fail(ctx, "make_tensor: " + std::to_string(nbytes) + " bytes given, shape needs " + std::to_string(t.nbytes()));
    if (nbytes) std::memcpy(t.data_ptr(), data, nbytes);
    ValueRec r;
    r.kind = T2O_KIND_TENSOR;
    r.constant = true;
    r.tensor = t;
    r.dtype = dtype;
    r.rank = rank;
    r.dims = shape;
    *out = ctx->session->values.add(std::move(r));
    return T2O_OK;
  });
}

t2o_status make_scalar(t2o_ctx* ctx, t2o_kind kind, int64_t i, double f, t2o_value* out) {
  return guarded(ctx, [&]() -> t2o_status {
    ValueRec r;
    r.kind = kind;
    r.constant = true;
    r.i = i;
    r.f = f;
    *out = ctx->session->values.add(std::move(r));
    return T2O_OK;
  });
}
t2o_status h_make_int(t2o_ctx* ctx, int64_t value, t2o_value* out) {
  return make_scalar(ctx, T2O_KIND_INT, value, (double)value, out);
}
t2o_status h_make_float(t2o_ctx* ctx, double value, t2o_value* out) {
  return make_scalar(ctx, T2O_KIND_FLOAT, (int64_t)value, value, out);
}
t2o_status h_make_bool(t2o_ctx* ctx, int32_t value, t2o_value* out) {
  return make_scalar(ctx, T2O_KIND_BOOL, value != 0, value != 0, out);
}
t2o_status h_make_none(t2o_ctx* ctx, t2o_value* out) { return make_scalar(ctx, T2O_KIND_NONE, 0, 0, out); }

t2o_status h_make_list(t2o_ctx* ctx, const t2o_value* items, int64_t count, t2o_value* out) {
  return guarded(ctx, [&]() -> t2o_status {
    ValueRec r;
    r.kind = T2O_KIND_LIST;
    r.constant = true;
    for (int64_t k = 0; k < count; ++k) {
      if (check_handle(ctx, items[k])) return T2O_ERROR;
      r.items.push_back(items[k]);
    }
    *out = ctx->session->values.add(std::move(r));
    return T2O_OK;
  });
}

t2o_status h_make_dynamic_scalar(t2o_ctx* ctx, t2o_value tensor, int32_t kind, t2o_value* out) {
  return guarded(ctx, [&]() -> t2o_status {
    if (check_handle(ctx, tensor)) return T2O_ERROR;
    if (kind == T2O_KIND_SEQUENCE || kind == T2O_KIND_OPTIONAL) {
      ValueRec r = ctx->session->values.rec(tensor);
      if (r.onnx.empty() || r.constant)
        return fail(ctx, std::string("make_dynamic_scalar: ") + (kind == T2O_KIND_SEQUENCE ? "a sequence" : "an optional") +
                             " must be an emitted value");
      r.kind = (t2o_kind)kind;
      if (kind == T2O_KIND_SEQUENCE) {
        r.rank = -1;
        r.dims.clear();
      }
      *out = ctx->session->values.add(std::move(r));
      return T2O_OK;
    }
    if (kind != T2O_KIND_INT && kind != T2O_KIND_FLOAT && kind != T2O_KIND_BOOL)
      return fail(ctx, "make_dynamic_scalar: kind must be INT, FLOAT, BOOL, SEQUENCE or OPTIONAL");
    t2o_value t = ctx->session->values.materialize(tensor);
    ValueRec r;
    r.kind = (t2o_kind)kind;
    r.constant = false;
    r.onnx = ctx->session->values.rec(t).onnx;
    r.dtype = ctx->session->values.rec(t).dtype;
    r.rank = 0;
    r.materialized = t;
    *out = ctx->session->values.add(std::move(r));
    return T2O_OK;
  });
}

t2o_status h_value_as_onnx(t2o_ctx* ctx, t2o_value v, t2o_value* out) {
  return guarded(ctx, [&]() -> t2o_status {
    if (check_handle(ctx, v)) return T2O_ERROR;
    *out = ctx->session->values.materialize(v);
    return T2O_OK;
  });
}

t2o_status h_emit_node(t2o_ctx* ctx, const t2o_node_spec* spec, t2o_value* outputs) {
  return guarded(ctx, [&]() -> t2o_status {
    if (!spec || spec->struct_size < offsetof(t2o_node_spec, num_attrs) + sizeof(int32_t))
      return fail(ctx, "emit_node: node spec too small (struct_size)");
    std::string error;
    emit_node(ctx->session->values, ctx->session->graph, *spec, outputs, error);
    if (!error.empty()) return fail(ctx, error);
    return T2O_OK;
  });
}

t2o_status h_set_output(t2o_ctx* ctx, int32_t index, t2o_value v) {
  return guarded(ctx, [&]() -> t2o_status {
    if (index < 0 || (size_t)index >= ctx->node->outputs().size())
      return fail(ctx, "set_output: output " + std::to_string(index) + " out of range");
    if (check_handle(ctx, v)) return T2O_ERROR;
    ctx->session->values.bind_output(ctx->node, (size_t)index, v);
    return T2O_OK;
  });
}

int64_t h_opset(t2o_ctx* ctx, const char* domain) { return ctx->session->graph.opset_of(domain ? domain : ""); }

t2o_status h_require_opset(t2o_ctx* ctx, const char* domain, int64_t version) {
  return guarded(ctx, [&]() -> t2o_status {
    ctx->session->graph.require_opset(domain ? domain : "", version);
    return T2O_OK;
  });
}

const char* h_unique_name(t2o_ctx* ctx, const char* hint) {
  try {
    ctx->borrowed.push_back(ctx->session->graph.unique_name(hint ? hint : "v"));
    return ctx->borrowed.back().c_str();
  } catch (...) {
    return "";
  }
}

void h_set_error(t2o_ctx* ctx, const char* message) {
  try {
    ctx->error = message ? message : "(no message)";
  } catch (...) {
  }
}

void h_log(t2o_ctx* ctx, int32_t level, const char* message) {
  try {
    if (level >= 2)
      ctx->session->warn(std::string(ctx->node->kind().toQualString()) + " at " + ctx->location + ": " +
                      (message ? message : ""));
  } catch (...) {
  }
}


// ---- ABI 1.1: blocks and subgraphs ----

torch::jit::Block* block_at(t2o_ctx* ctx, int32_t block) {
  if (block < 0 || (size_t)block >= ctx->node->blocks().size()) return nullptr;
  return ctx->node->blocks()[(size_t)block];
}

int32_t h_node_num_blocks(t2o_ctx* ctx) { return (int32_t)ctx->node->blocks().size(); }
int32_t h_block_num_inputs(t2o_ctx* ctx, int32_t block) {
  auto* b = block_at(ctx, block);
  return b ? (int32_t)b->inputs().size() : -1;
}
int32_t h_block_num_outputs(t2o_ctx* ctx, int32_t block) {
  auto* b = block_at(ctx, block);
  return b ? (int32_t)b->outputs().size() : -1;
}

// What an Optional[Tensor] (or None) a block gives is at run time, before the block is converted:
// NONE when it is always None, TENSOR when never, OPTIONAL when it may be either (an ONNX optional).
// A value already converted (made outside the block) is what it was converted to; inside, a None
// constant is NONE, prim::unchecked_cast a TENSOR, an If on a constant condition its branch's, any
// other If either branch's; what else makes an Optional (a loop, a list item) may be either.
int32_t optional_kind(Session& s, const torch::jit::Value* v, int depth = 0) {
  if (v->type()->kind() == c10::TypeKind::NoneType) return T2O_KIND_NONE;
  if (s.values.is_bound(v)) {
    int32_t k = s.values.rec(s.values.handle_of(v)).kind;
    return k == T2O_KIND_NONE || k == T2O_KIND_OPTIONAL ? k : T2O_KIND_TENSOR;
  }
  const torch::jit::Node* n = v->node();
  if (n->kind() == c10::prim::Constant) return torch::jit::toIValue(v)->isNone() ? T2O_KIND_NONE : T2O_KIND_TENSOR;
  if (n->kind() == c10::prim::unchecked_cast) return T2O_KIND_TENSOR;
  if (n->kind() == c10::prim::If && depth < 32) {
    size_t i = v->offset();
    auto branch = [&](size_t b) { return optional_kind(s, n->blocks()[b]->outputs()[i], depth + 1); };
    const torch::jit::Value* cond = n->input(0);
    if (cond->node()->kind() == c10::prim::Constant) return branch(torch::jit::toIValue(cond)->toBool() ? 0 : 1);
    int32_t a = branch(0), b = branch(1);
    return a == b ? a : T2O_KIND_OPTIONAL;
  }
  return T2O_KIND_OPTIONAL;
}

bool is_optional_tensor(const c10::TypePtr& type) {
  auto opt = type->cast<c10::OptionalType>();
  return opt && opt->getElementType()->kind() == c10::TypeKind::TensorType;
}

t2o_value block_value(t2o_ctx* ctx, int32_t block, int32_t index, bool input) {
  try {
    auto* b = block_at(ctx, block);
    if (!b) return T2O_NO_VALUE;
    auto values = input ? b->inputs() : b->outputs();
    if (index < 0 || (size_t)index >= values.size()) return T2O_NO_VALUE;
    const torch::jit::Value* v = values[(size_t)index];
    t2o_value h = ctx->session->values.type_handle_of(v);
    // ABI 1.3: an Optional[Tensor] output is NONE, TENSOR or OPTIONAL as it will convert (a parameter,
    // carried by a loop, OPTIONAL: the loop decides), so If and Loop know before converting whether
    // it needs an ONNX optional.
    if (is_optional_tensor(v->type()) || (!input && v->type()->kind() == c10::TypeKind::NoneType)) {
      ValueRec r = ctx->session->values.rec(h);
      r.kind = (t2o_kind)(input ? T2O_KIND_OPTIONAL : optional_kind(*ctx->session, v));
      return ctx->session->values.add(std::move(r));
    }
    // A list (not a tuple) of tensors may change length in a block: its type says SEQUENCE.
    auto list = v->type()->cast<c10::ListType>();
    if (list && list->getElementType()->kind() == c10::TypeKind::TensorType) {
      ValueRec r = ctx->session->values.rec(h);
      r.kind = T2O_KIND_SEQUENCE;
      h = ctx->session->values.add(std::move(r));
    } else if (list && (list->getElementType()->kind() == c10::TypeKind::IntType ||
                        list->getElementType()->kind() == c10::TypeKind::BoolType)) {
      // A list of ints or bools carried by a loop (a list comprehension of sizes) is a sequence of 0-d
      // int64 / bool tensors: its element type, which the example run (tensor lists only) does not give.
      ValueRec r = ctx->session->values.rec(h);
      if (!r.dtype)
        r.dtype = list->getElementType()->kind() == c10::TypeKind::IntType ? T2O_DTYPE_INT64 : T2O_DTYPE_BOOL;
      h = ctx->session->values.add(std::move(r));
    }
    return h;
  } catch (const std::exception& e) {
    ctx->error = error_reason(e.what());
    return T2O_NO_VALUE;
  }
}
t2o_value h_block_input(t2o_ctx* ctx, int32_t block, int32_t index) { return block_value(ctx, block, index, true); }
t2o_value h_block_output(t2o_ctx* ctx, int32_t block, int32_t index) { return block_value(ctx, block, index, false); }

t2o_status h_subgraph_begin(t2o_ctx* ctx, const char* name_hint) {
  return guarded(ctx, [&]() -> t2o_status {
    ctx->session->graph.open_subgraph(name_hint && *name_hint ? name_hint : "subgraph");
    ++ctx->open_subgraphs;
    return T2O_OK;
  });
}

// Element type and rank of a subgraph's input or output. Dims stay unnamed: a loop body sees other
// sizes at each iteration, and a branch not taken by the example run was never measured.
void set_value_type(onnx::ValueInfoProto* info, t2o_kind kind, int32_t dtype, int32_t rank) {
  set_onnx_type(info->mutable_type(), kind, dtype, rank);
}

t2o_status h_subgraph_input(t2o_ctx* ctx, int32_t kind, int32_t dtype, int32_t rank, const int64_t* dims,
                            t2o_value* out) {
  return guarded(ctx, [&]() -> t2o_status {
    if (ctx->open_subgraphs <= 0) return fail(ctx, "subgraph_input: no subgraph is open");
    bool scalar = kind == T2O_KIND_INT || kind == T2O_KIND_FLOAT || kind == T2O_KIND_BOOL;
    if (kind != T2O_KIND_TENSOR && kind != T2O_KIND_SEQUENCE && kind != T2O_KIND_OPTIONAL && !scalar)
      return fail(ctx, "subgraph_input: kind must be TENSOR, SEQUENCE, OPTIONAL, INT, FLOAT or BOOL");
    auto& s = *ctx->session;
    if (scalar) {
      rank = 0;
      if (!dtype) dtype = kind == T2O_KIND_INT ? T2O_DTYPE_INT64 : kind == T2O_KIND_BOOL ? T2O_DTYPE_BOOL : T2O_DTYPE_FLOAT;
    }
    ValueRec r;
    r.kind = scalar ? T2O_KIND_TENSOR : (t2o_kind)kind;
    r.onnx = s.graph.unique_name(s.graph.current().name() + "_in");
    r.dtype = dtype;
    r.rank = rank;
    if (rank > 0) r.dims.assign(dims ? dims : nullptr, dims ? dims + rank : nullptr);
    if (rank > 0 && !dims) r.dims.assign((size_t)rank, -1);
    auto* info = s.graph.current().add_input();
    info->set_name(r.onnx);
    set_value_type(info, r.kind, dtype, rank);
    t2o_value tensor = s.values.add(r);
    if (!scalar) {
      *out = tensor;
      return T2O_OK;
    }
    ValueRec scalar_rec;
    scalar_rec.kind = (t2o_kind)kind;
    scalar_rec.onnx = r.onnx;
    scalar_rec.dtype = dtype;
    scalar_rec.rank = 0;
    scalar_rec.materialized = tensor;
    *out = s.values.add(std::move(scalar_rec));
    return T2O_OK;
  });
}

t2o_status h_convert_block(t2o_ctx* ctx, int32_t block, const t2o_value* params, int32_t num_params,
                           t2o_value* outputs) {
  auto* b = block_at(ctx, block);
  if (!b) return fail(ctx, "convert_block: node has no block " + std::to_string(block));
  if (num_params != (int32_t)b->inputs().size())
    return fail(ctx, "convert_block: block " + std::to_string(block) + " has " + std::to_string(b->inputs().size()) +
                         " parameter(s), " + std::to_string(num_params) + " given");
  auto& s = *ctx->session;
  try {
    for (int32_t i = 0; i < num_params; ++i) {
      if (check_handle(ctx, params[i])) return T2O_ERROR;
      s.values.bind(b->inputs()[(size_t)i], params[i]);
    }
    convert_block(s, b);
    for (size_t k = 0; k < b->outputs().size(); ++k) outputs[k] = s.values.handle_of(b->outputs()[k]);
    return T2O_OK;
  } catch (const std::exception& e) {
    // A node of the block failed: the walk reports that node, not the one holding the block.
    ctx->nested_error = std::current_exception();
    return fail(ctx, error_reason(e.what()));
  }
}

t2o_status h_subgraph_end(t2o_ctx* ctx, const t2o_value* outputs, int32_t num_outputs, t2o_value* graph_out) {
  return guarded(ctx, [&]() -> t2o_status {
    if (ctx->open_subgraphs <= 0) return fail(ctx, "subgraph_end: no subgraph is open");
    auto& s = *ctx->session;
    onnx::GraphProto& g = s.graph.current();
    std::unordered_set<std::string> produced, used;
    for (const auto& n : g.node())
      for (const auto& o : n.output()) produced.insert(o);
    for (int32_t k = 0; k < num_outputs; ++k) {
      if (check_handle(ctx, outputs[k])) return T2O_ERROR;
      const ValueRec& r = s.values.rec(outputs[k]);
      if (r.kind == T2O_KIND_NONE || r.kind == T2O_KIND_OTHER || r.kind == T2O_KIND_STRING ||
          r.kind == T2O_KIND_DEVICE || r.kind == T2O_KIND_GRAPH)
        return fail(ctx, "subgraph_end: output " + std::to_string(k) + " has no ONNX value (kind " +
                             std::to_string(r.kind) + ")");
      if (is_complex_dtype(r.dtype))
        return fail(ctx, "subgraph_end: output " + std::to_string(k) + " is a complex tensor: ONNX has no complex type "
                         "(go back to real inside the block, e.g. torch.view_as_real)");
      t2o_value t = s.values.materialize(outputs[k]);
      const ValueRec tr = s.values.rec(t);
      std::string name = tr.onnx;
      // An output must be made inside the subgraph, once (ONNX Runtime refuses outer-scope values
      // and inputs returned as they are): others pass through an Identity.
      if (!produced.count(name) || used.count(name)) {
        std::string copied = s.graph.unique_name(name + "_out");
        const NodeOrigin origin{ctx->node->kind().toQualString(), ctx->location, s.resolver.pack_of(ctx->symbolic)};
        auto add = [&](const char* op_type, std::vector<std::string> inputs, const std::string& output) {
          auto* n = g.add_node();
          n->set_op_type(op_type);
          n->set_name(s.graph.unique_name(op_type));
          for (auto& in : inputs) n->add_input(in);
          n->add_output(output);
          ++s.graph.onnx_nodes;
          s.graph.record_origin(n->name(), origin);
        };
        if (tr.kind == T2O_KIND_SEQUENCE && s.graph.opset_of("") < 14) {
          // Identity takes sequences from opset 14: insert an element at the front and erase it.
          auto st = torch_dtype(tr.dtype);
          if (!st) return fail(ctx, "subgraph_end: output " + std::to_string(k) + ": a sequence of unknown element type");
          t2o_value filler = s.values.add_initializer(at::zeros({}, at::TensorOptions().dtype(*st)), tr.dtype, "filler");
          t2o_value zero = s.values.add_initializer(at::zeros({}, at::kLong), T2O_DTYPE_INT64, "zero");
          std::string grown = s.graph.unique_name(name + "_grown");
          add("SequenceInsert", {name, s.values.rec(filler).onnx, s.values.rec(zero).onnx}, grown);
          add("SequenceErase", {grown, s.values.rec(zero).onnx}, copied);
        } else if (tr.kind == T2O_KIND_OPTIONAL && s.graph.opset_of("") < 16) {
          // Identity takes optionals from opset 16: unwrap and wrap again (an empty one stays empty).
          std::string has = s.graph.unique_name(name + "_has");
          add("OptionalHasElement", {name}, has);
          auto* n = g.add_node();
          n->set_op_type("If");
          n->set_name(s.graph.unique_name("If"));
          n->add_input(has);
          n->add_output(copied);
          ++s.graph.onnx_nodes;
          s.graph.record_origin(n->name(), origin);
          auto branch = [&](const char* attr_name, bool full) {
            auto* a = n->add_attribute();
            a->set_name(attr_name);
            a->set_type(onnx::AttributeProto::GRAPH);
            auto* bg = a->mutable_g();
            bg->set_name(s.graph.unique_name(attr_name));
            auto* bn = bg->add_node();
            bn->set_op_type("Optional");
            bn->set_name(s.graph.unique_name("Optional"));
            std::string bo = s.graph.unique_name(name + (full ? "_some" : "_none"));
            if (full) {
              std::string elem = s.graph.unique_name(name + "_elem");
              auto* get = bg->add_node();
              get->set_op_type("OptionalGetElement");
              get->set_name(s.graph.unique_name("OptionalGetElement"));
              get->add_input(name);
              get->add_output(elem);
              bg->mutable_node()->SwapElements(0, 1);
              bn->add_input(elem);
            } else {
              auto* ta = bn->add_attribute();
              ta->set_name("type");
              ta->set_type(onnx::AttributeProto::TYPE_PROTO);
              set_onnx_type(ta->mutable_tp(), T2O_KIND_TENSOR, tr.dtype, tr.rank);
            }
            bn->add_output(bo);
            set_value_type(bg->add_output(), T2O_KIND_OPTIONAL, tr.dtype, tr.rank);
            bg->mutable_output(0)->set_name(bo);
          };
          branch("then_branch", true);
          branch("else_branch", false);
        } else {
          add("Identity", {name}, copied);
        }
        name = copied;
      }
      used.insert(name);
      auto* info = g.add_output();
      info->set_name(name);
      set_value_type(info, tr.kind == T2O_KIND_SEQUENCE || tr.kind == T2O_KIND_OPTIONAL ? tr.kind : T2O_KIND_TENSOR, tr.dtype,
                     r.kind == T2O_KIND_TENSOR || r.kind == T2O_KIND_SEQUENCE || r.kind == T2O_KIND_OPTIONAL ? tr.rank : 0);
    }
    ValueRec r;
    r.kind = T2O_KIND_GRAPH;
    r.i = s.graph.close_subgraph();
    --ctx->open_subgraphs;
    *graph_out = s.values.add(std::move(r));
    return T2O_OK;
  });
}

t2o_status h_node_add_metadata(t2o_ctx* ctx, t2o_value node_output, const char* key, const char* value) {
  return guarded(ctx, [&]() -> t2o_status {
    if (check_handle(ctx, node_output) != T2O_OK) return T2O_ERROR;
    if (!key || !value) return fail(ctx, "node_add_metadata: null key or value");
    add_node_metadata(*ctx->session, node_output, key, value);
    return T2O_OK;
  });
}

int32_t h_quantized_dtype(t2o_ctx* ctx, int32_t is_output, int32_t index) {
  const auto values = is_output ? ctx->node->outputs() : ctx->node->inputs();
  if (index < 0 || (size_t)index >= values.size()) return 0;
  return quantized_dtype_of(*ctx->session, values[(size_t)index]);
}

int32_t h_default_dtype(t2o_ctx* ctx) {
  return ctx->session->options.default_dtype == "float64" ? T2O_DTYPE_DOUBLE : T2O_DTYPE_FLOAT;
}

// ONNX Optional (opset 15): an optional holding `element`, or an empty one of tensor(dtype) of `rank`.
t2o_status h_make_optional(t2o_ctx* ctx, t2o_value element, int32_t dtype, int32_t rank, t2o_value* out) {
  return guarded(ctx, [&]() -> t2o_status {
    auto& s = *ctx->session;
    if (s.graph.opset_of("") < 15) return fail(ctx, "make_optional: ONNX Optional needs opset 15");
    bool empty = element == T2O_NO_VALUE;
    if (!empty) {
      if (check_handle(ctx, element)) return T2O_ERROR;
      const ValueRec& e = s.values.rec(element);
      if (e.kind == T2O_KIND_OPTIONAL) {
        *out = element;
        return T2O_OK;
      }
      empty = e.kind == T2O_KIND_NONE;
      if (!empty && e.kind != T2O_KIND_TENSOR)
        return fail(ctx, "make_optional: the element must be a tensor, an optional or None");
      if (!empty) {
        dtype = e.dtype;
        rank = e.rank;
      }
    }
    if (empty && !dtype) return fail(ctx, "make_optional: an empty optional needs its element type");
    t2o_node_spec spec{};
    spec.struct_size = sizeof(spec);
    spec.op_type = "Optional";
    spec.inputs = empty ? nullptr : &element;
    spec.num_inputs = empty ? 0 : 1;
    spec.num_outputs = 1;
    t2o_value o = T2O_NO_VALUE;
    std::string error;
    emit_node(s.values, s.graph, spec, &o, error);
    if (!error.empty()) return fail(ctx, error);
    if (empty) {
      onnx::GraphProto& g = s.graph.current();
      auto* a = g.mutable_node(g.node_size() - 1)->add_attribute();
      a->set_name("type");
      a->set_type(onnx::AttributeProto::TYPE_PROTO);
      set_onnx_type(a->mutable_tp(), T2O_KIND_TENSOR, dtype, rank);
    }
    auto& r = s.values.rec(o);
    r.kind = T2O_KIND_OPTIONAL;
    r.dtype = dtype;
    r.rank = rank;
    if (!empty) r.dims = s.values.rec(element).dims;
    else if (rank > 0) r.dims.assign((size_t)rank, -1);
    *out = o;
    return T2O_OK;
  });
}

// The libtorch this host runs models with (its results are the ones the export must match).
int32_t h_torch_version(t2o_ctx*) { return TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR; }

}  // namespace

const t2o_host_api* Session::host_api() {
  static const t2o_host_api api = {
      sizeof(t2o_host_api), T2O_ABI_MAJOR, T2O_ABI_MINOR,
      h_node_kind, h_node_schema, h_node_location, h_num_inputs, h_num_outputs, h_input, h_output,
      h_value_kind, h_value_dtype, h_value_rank, h_value_dim, h_value_is_constant, h_value_int, h_value_float,
      h_value_string, h_value_list_size, h_value_list_item, h_value_tensor_data, h_value_set_type,
      h_make_tensor, h_make_int, h_make_float, h_make_bool, h_make_none, h_make_list, h_make_dynamic_scalar,
      h_value_as_onnx,
      h_emit_node, h_set_output,
      h_opset, h_require_opset, h_unique_name, h_set_error, h_log,
      // ABI 1.1
      h_node_num_blocks, h_block_num_inputs, h_block_num_outputs, h_block_input, h_block_output,
      h_subgraph_begin, h_subgraph_input, h_convert_block, h_subgraph_end,
      h_node_add_metadata, h_quantized_dtype,
      // ABI 1.2
      h_default_dtype,
      // ABI 1.3
      h_make_optional,
      // ABI 1.4
      h_torch_version,
  };
  return &api;
}

}  // namespace t2o::core
