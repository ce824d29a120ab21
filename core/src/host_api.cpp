// The host side of the C ABI: the function table symbolics call. Every function catches everything:
// no exception crosses the boundary; failures become a status plus a message on the context.
#include "converter.hpp"
#include "torch2onnx/core/dtype_table.hpp"

#include <cstring>

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
    return fail(ctx, first_line(e.what()));
  } catch (...) {
    return fail(ctx, "unknown error in the host");
  }
}

t2o_status check_handle(t2o_ctx* ctx, t2o_value v) {
  if (!ctx->conv->valid(v)) return fail(ctx, "invalid value handle " + std::to_string(v));
  return T2O_OK;
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
    return ctx->conv->handle_of(ctx->node->input(index));
  } catch (const std::exception& e) {
    ctx->error = first_line(e.what());
    return T2O_NO_VALUE;
  }
}

t2o_value h_output(t2o_ctx* ctx, int32_t index) {
  try {
    if (index < 0 || (size_t)index >= ctx->node->outputs().size()) return T2O_NO_VALUE;
    return ctx->conv->type_handle_of(ctx->node->output(index));
  } catch (const std::exception& e) {
    ctx->error = first_line(e.what());
    return T2O_NO_VALUE;
  }
}

int32_t h_value_kind(t2o_ctx* ctx, t2o_value v) {
  return ctx->conv->valid(v) ? ctx->conv->rec(v).kind : T2O_KIND_OTHER;
}
int32_t h_value_dtype(t2o_ctx* ctx, t2o_value v) { return ctx->conv->valid(v) ? ctx->conv->rec(v).dtype : 0; }
int32_t h_value_rank(t2o_ctx* ctx, t2o_value v) { return ctx->conv->valid(v) ? ctx->conv->rec(v).rank : -1; }
int64_t h_value_dim(t2o_ctx* ctx, t2o_value v, int32_t axis) {
  if (!ctx->conv->valid(v)) return -1;
  const auto& r = ctx->conv->rec(v);
  if (r.rank < 0) return -1;
  if (axis < 0) axis += r.rank;
  if (axis < 0 || axis >= r.rank) return -1;
  return r.dims[(size_t)axis];
}
int32_t h_value_is_constant(t2o_ctx* ctx, t2o_value v) {
  if (!ctx->conv->valid(v)) return 0;
  const auto& r = ctx->conv->rec(v);
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
    const auto& r = ctx->conv->rec(v);
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
    const auto& r = ctx->conv->rec(v);
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
  const auto& r = ctx->conv->rec(v);
  if (r.kind != T2O_KIND_STRING) return fail(ctx, "expected a constant string");
  *out = r.s.c_str();
  return T2O_OK;
}

t2o_status h_value_list_size(t2o_ctx* ctx, t2o_value v, int64_t* out) {
  if (check_handle(ctx, v)) return T2O_ERROR;
  const auto& r = ctx->conv->rec(v);
  if (r.kind != T2O_KIND_LIST) return fail(ctx, "expected a list");
  *out = (int64_t)r.items.size();
  return T2O_OK;
}

t2o_status h_value_list_item(t2o_ctx* ctx, t2o_value v, int64_t index, t2o_value* out) {
  if (check_handle(ctx, v)) return T2O_ERROR;
  const auto& r = ctx->conv->rec(v);
  if (r.kind != T2O_KIND_LIST) return fail(ctx, "expected a list");
  if (index < 0 || (size_t)index >= r.items.size())
    return fail(ctx, "list index " + std::to_string(index) + " out of range (size " + std::to_string(r.items.size()) + ")");
  *out = r.items[(size_t)index];
  return T2O_OK;
}

t2o_status h_value_tensor_data(t2o_ctx* ctx, t2o_value v, const void** data, size_t* nbytes) {
  if (check_handle(ctx, v)) return T2O_ERROR;
  const auto& r = ctx->conv->rec(v);
  if (r.kind != T2O_KIND_TENSOR || !r.constant || !r.tensor.defined())
    return fail(ctx, "expected a constant tensor");
  *data = r.tensor.data_ptr();
  *nbytes = r.tensor.nbytes();
  return T2O_OK;
}

t2o_status h_value_set_type(t2o_ctx* ctx, t2o_value v, int32_t dtype, int32_t rank, const int64_t* dims) {
  if (check_handle(ctx, v)) return T2O_ERROR;
  auto& r = ctx->conv->rec(v);
  if (r.kind != T2O_KIND_TENSOR) return fail(ctx, "value_set_type: not a tensor");
  r.dtype = dtype;
  r.rank = rank;
  r.dims.assign(dims, dims + (rank > 0 ? rank : 0));
  return T2O_OK;
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
    *out = ctx->conv->add(std::move(r));
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
    *out = ctx->conv->add(std::move(r));
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
    *out = ctx->conv->add(std::move(r));
    return T2O_OK;
  });
}

t2o_status h_make_dynamic_scalar(t2o_ctx* ctx, t2o_value tensor, int32_t kind, t2o_value* out) {
  return guarded(ctx, [&]() -> t2o_status {
    if (check_handle(ctx, tensor)) return T2O_ERROR;
    if (kind != T2O_KIND_INT && kind != T2O_KIND_FLOAT && kind != T2O_KIND_BOOL)
      return fail(ctx, "make_dynamic_scalar: kind must be INT, FLOAT or BOOL");
    t2o_value t = ctx->conv->materialize(tensor);
    ValueRec r;
    r.kind = (t2o_kind)kind;
    r.constant = false;
    r.onnx = ctx->conv->rec(t).onnx;
    r.dtype = ctx->conv->rec(t).dtype;
    r.rank = 0;
    r.materialized = t;
    *out = ctx->conv->add(std::move(r));
    return T2O_OK;
  });
}

t2o_status h_value_as_onnx(t2o_ctx* ctx, t2o_value v, t2o_value* out) {
  return guarded(ctx, [&]() -> t2o_status {
    if (check_handle(ctx, v)) return T2O_ERROR;
    *out = ctx->conv->materialize(v);
    return T2O_OK;
  });
}

t2o_status h_emit_node(t2o_ctx* ctx, const t2o_node_spec* spec, t2o_value* outputs) {
  return guarded(ctx, [&]() -> t2o_status {
    if (!spec || spec->struct_size < offsetof(t2o_node_spec, num_attrs) + sizeof(int32_t))
      return fail(ctx, "emit_node: node spec too small (struct_size)");
    std::string error;
    ctx->conv->emit(*spec, outputs, error);
    if (!error.empty()) return fail(ctx, error);
    return T2O_OK;
  });
}

t2o_status h_set_output(t2o_ctx* ctx, int32_t index, t2o_value v) {
  return guarded(ctx, [&]() -> t2o_status {
    if (index < 0 || (size_t)index >= ctx->node->outputs().size())
      return fail(ctx, "set_output: output " + std::to_string(index) + " out of range");
    if (check_handle(ctx, v)) return T2O_ERROR;
    ctx->conv->bind_output(ctx->node, index, v);
    return T2O_OK;
  });
}

int64_t h_opset(t2o_ctx* ctx, const char* domain) { return ctx->conv->opset_of(domain ? domain : ""); }

t2o_status h_require_opset(t2o_ctx* ctx, const char* domain, int64_t version) {
  return guarded(ctx, [&]() -> t2o_status {
    ctx->conv->require_opset(domain ? domain : "", version);
    return T2O_OK;
  });
}

const char* h_unique_name(t2o_ctx* ctx, const char* hint) {
  try {
    ctx->borrowed.push_back(ctx->conv->unique_name(hint ? hint : "v"));
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

int32_t h_quantized_dtype(t2o_ctx* ctx, int32_t is_output, int32_t index) {
  const auto& values = is_output ? ctx->node->outputs() : ctx->node->inputs();
  if (index < 0 || (size_t)index >= values.size()) return 0;
  return ctx->conv->quantized_dtype_of(values[index]);
}

void h_log(t2o_ctx* ctx, int32_t level, const char* message) {
  try {
    if (level >= 2)
      ctx->conv->warn(std::string(ctx->node->kind().toQualString()) + " at " + ctx->location + ": " +
                      (message ? message : ""));
  } catch (...) {
  }
}

}  // namespace

const t2o_host_api* Converter::host_api() const {
  static const t2o_host_api api = {
      sizeof(t2o_host_api), T2O_ABI_MAJOR, T2O_ABI_MINOR,
      h_node_kind, h_node_schema, h_node_location, h_num_inputs, h_num_outputs, h_input, h_output,
      h_value_kind, h_value_dtype, h_value_rank, h_value_dim, h_value_is_constant, h_value_int, h_value_float,
      h_value_string, h_value_list_size, h_value_list_item, h_value_tensor_data, h_value_set_type,
      h_make_tensor, h_make_int, h_make_float, h_make_bool, h_make_none, h_make_list, h_make_dynamic_scalar,
      h_value_as_onnx,
      h_emit_node, h_set_output,
      h_opset, h_require_opset, h_unique_name, h_set_error, h_log,
      h_quantized_dtype,
  };
  return &api;
}

}  // namespace t2o::core
