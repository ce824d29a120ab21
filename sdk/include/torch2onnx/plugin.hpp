// torch2onnx plugin SDK — header-only C++ wrapper over plugin.h for pack authors.
//
// A symbolic is a plain function of t2o::Ctx&. It reads the TorchScript node's inputs, emits ONNX
// nodes and binds the node's outputs. Failures are thrown as t2o::Error (or any std::exception)
// and turned into a status at the boundary: no exception ever reaches the host.
//
//   T2O_SYMBOLIC("aten::relu", 9) {
//     ctx.set_output(0, ctx.op("Relu", {ctx.input(0)}));
//   }
//   T2O_PLUGIN("my-pack", "1.0")   // once per pack, in any one source file
//
// Build packs with hidden visibility (the CMake helper t2o_add_plugin does): each pack then has
// its own registration list and exports the entry symbol only.
#ifndef TORCH2ONNX_PLUGIN_HPP
#define TORCH2ONNX_PLUGIN_HPP

#include <torch2onnx/plugin.h>

#include <cstdint>
#include <deque>
#include <exception>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace t2o {

// Thrown by symbolics; code is T2O_ERROR (a failure) or T2O_UNSUPPORTED (these arguments can't be
// converted, e.g. an interpolation mode with no ONNX equivalent).
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, t2o_status code = T2O_ERROR)
      : std::runtime_error(message), code_(code) {}
  t2o_status code() const { return code_; }

 private:
  t2o_status code_;
};

[[noreturn]] inline void fail(const std::string& message) { throw Error(message, T2O_ERROR); }
[[noreturn]] inline void unsupported(const std::string& message) { throw Error(message, T2O_UNSUPPORTED); }

class Ctx;

// A handle to a value in the host's table, bound to the call it came from.
class Value {
 public:
  Value() = default;
  Value(Ctx* ctx, t2o_value id) : ctx_(ctx), id_(id) {}

  t2o_value id() const { return id_; }
  bool valid() const { return id_ != T2O_NO_VALUE; }

  t2o_kind kind() const;
  bool is_none() const { return kind() == T2O_KIND_NONE; }
  bool is_tensor() const { return kind() == T2O_KIND_TENSOR; }
  bool is_list() const { return kind() == T2O_KIND_LIST; }
  bool is_sequence() const { return kind() == T2O_KIND_SEQUENCE; }  // ABI 1.1
  bool is_optional() const { return kind() == T2O_KIND_OPTIONAL; }  // ABI 1.3
  bool is_const() const;

  t2o_dtype dtype() const;
  int32_t rank() const;  // -1 if unknown
  int64_t dim(int32_t axis) const;  // -1 if dynamic or unknown
  std::vector<int64_t> dims() const;  // empty when the rank is unknown (check rank() first)
  bool has_static_shape() const;

  int64_t to_int() const;
  double to_float() const;
  bool to_bool() const;
  std::string to_string() const;
  int64_t list_size() const;
  Value item(int64_t index) const;
  std::vector<Value> items() const;
  std::vector<int64_t> to_ints() const;  // constant int list (or 1-D constant int tensor / single int)
  std::vector<double> to_floats() const;
  // Bytes of a constant tensor (borrowed for the call).
  std::pair<const void*, size_t> tensor_data() const;
  // The call this value belongs to (null for an invalid Value()).
  Ctx* ctx() const { return ctx_; }

 private:
  Ctx* ctx_ = nullptr;
  t2o_value id_ = T2O_NO_VALUE;
  friend class Ctx;
};

// An attribute of an emitted node; owns its storage until the node is emitted.
class Attr {
 public:
  static Attr i(std::string name, int64_t v) { Attr a(std::move(name), T2O_ATTR_INT); a.ints_ = {v}; return a; }
  static Attr f(std::string name, double v) { Attr a(std::move(name), T2O_ATTR_FLOAT); a.floats_ = {v}; return a; }
  static Attr s(std::string name, std::string v) {
    Attr a(std::move(name), T2O_ATTR_STRING);
    a.strings_ = {std::move(v)};
    return a;
  }
  static Attr ints(std::string name, std::vector<int64_t> v) {
    Attr a(std::move(name), T2O_ATTR_INTS);
    a.ints_ = std::move(v);
    return a;
  }
  static Attr floats(std::string name, std::vector<double> v) {
    Attr a(std::move(name), T2O_ATTR_FLOATS);
    a.floats_ = std::move(v);
    return a;
  }
  static Attr strings(std::string name, std::vector<std::string> v) {
    Attr a(std::move(name), T2O_ATTR_STRINGS);
    a.strings_ = std::move(v);
    return a;
  }
  static Attr tensor(std::string name, const Value& constant) {
    Attr a(std::move(name), T2O_ATTR_TENSOR);
    a.tensor_ = constant.id();
    return a;
  }
  // ABI 1.1: a subgraph closed by Ctx::subgraph_end.
  static Attr graph(std::string name, const Value& subgraph) {
    Attr a(std::move(name), T2O_ATTR_GRAPH);
    a.tensor_ = subgraph.id();
    return a;
  }

  // A view for the C call; valid while this Attr lives and is not modified.
  t2o_attr raw() const {
    c_strings_.clear();
    for (const auto& s : strings_) c_strings_.push_back(s.c_str());
    t2o_attr r{};
    r.struct_size = sizeof(t2o_attr);
    r.name = name_.c_str();
    r.type = type_;
    r.count = type_ == T2O_ATTR_INTS ? (int64_t)ints_.size()
              : type_ == T2O_ATTR_FLOATS ? (int64_t)floats_.size()
              : type_ == T2O_ATTR_STRINGS ? (int64_t)strings_.size()
                                          : 1;
    r.ints = ints_.data();
    r.floats = floats_.data();
    r.strings = c_strings_.data();
    r.tensor = tensor_;
    return r;
  }

 private:
  Attr(std::string name, int32_t type) : name_(std::move(name)), type_(type) {}
  std::string name_;
  int32_t type_;
  std::vector<int64_t> ints_;
  std::vector<double> floats_;
  std::vector<std::string> strings_;
  mutable std::vector<const char*> c_strings_;
  t2o_value tensor_ = T2O_NO_VALUE;
};

// One symbolic call on one TorchScript node.
class Ctx {
 public:
  Ctx(const t2o_host_api* host, t2o_ctx* raw) : host_(host), raw_(raw) {}

  const t2o_host_api* host() const { return host_; }
  // Packs may be built for a newer minor ABI than the host they run in: check a host member added
  // after ABI 1.0 before calling it, e.g. if (T2O_HOST_HAS(ctx, some_new_fn)) ...
#define T2O_HOST_HAS(ctx, member) T2O_HAS_MEMBER((ctx).host(), t2o_host_api, member)
  t2o_ctx* raw() const { return raw_; }
  t2o_dtype quantized_dtype(int32_t is_output, int32_t i) const {
    if (!T2O_HAS_MEMBER(host_, t2o_host_api, quantized_dtype)) return T2O_DTYPE_UNDEFINED;
    return (t2o_dtype)host_->quantized_dtype(raw_, is_output, i);
  }

  std::string kind() const { return host_->node_kind(raw_); }
  std::string location() const { return host_->node_location(raw_); }
  int32_t num_inputs() const { return host_->num_inputs(raw_); }
  int32_t num_outputs() const { return host_->num_outputs(raw_); }
  Value input(int32_t i) {
    if (i < 0 || i >= num_inputs())
      fail(kind() + ": input " + std::to_string(i) + " out of range (" + std::to_string(num_inputs()) + " inputs)");
    return wrap(host_->input(raw_, i));
  }
  // The TorchScript output's type, as recorded from the example run (dtype, rank, dims).
  Value output(int32_t i) { return wrap(host_->output(raw_, i)); }
  // Quantized tensors (ABI 1.1): the integer type (UINT8 for quint8, INT8 for qint8, INT32 for qint32)
  // of TorchScript input i / output i when the example run saw a quantized tensor there, else
  // UNDEFINED (also on an ABI 1.0 host). The ONNX value itself is FLOAT (the dequantized values).
  t2o_dtype input_quantized_dtype(int32_t i) const { return quantized_dtype(0, i); }
  // The model's default float dtype (torch.get_default_dtype(): FLOAT, or DOUBLE for a model saved
  // under torch.set_default_dtype(torch.float64)); FLOAT on an ABI < 1.2 host.
  t2o_dtype default_dtype() const {
    if (!T2O_HAS_MEMBER(host_, t2o_host_api, default_dtype)) return T2O_DTYPE_FLOAT;
    return (t2o_dtype)host_->default_dtype(raw_);
  }
  t2o_dtype output_quantized_dtype(int32_t i) const { return quantized_dtype(1, i); }
  // The PyTorch release whose semantics the model follows (the libtorch the host runs), major * 100 +
  // minor: 113 for 1.13, 214 for 2.14; 113 on an ABI < 1.4 host (those built against 1.13 only).
  int32_t torch_version() const {
    if (!T2O_HAS_MEMBER(host_, t2o_host_api, torch_version)) return 113;
    return host_->torch_version(raw_);
  }

  int64_t opset(const char* domain = "") const { return host_->opset(raw_, domain); }
  void require_opset(const char* domain, int64_t version) { check(host_->require_opset(raw_, domain, version)); }

  // Emits a node with one output.
  Value op(const std::string& op_type, const std::vector<Value>& inputs, const std::vector<Attr>& attrs = {},
           const std::string& domain = "") {
    return op_n(op_type, inputs, 1, attrs, domain)[0];
  }
  std::vector<Value> op_n(const std::string& op_type, const std::vector<Value>& inputs, int32_t num_outputs,
                          const std::vector<Attr>& attrs = {}, const std::string& domain = "") {
    std::vector<t2o_value> in;
    in.reserve(inputs.size());
    for (const auto& v : inputs) in.push_back(v.valid() ? as_onnx(v).id() : T2O_NO_VALUE);
    std::vector<t2o_attr> raw_attrs;
    raw_attrs.reserve(attrs.size());
    for (const auto& a : attrs) raw_attrs.push_back(a.raw());
    t2o_node_spec spec{};
    spec.struct_size = sizeof(t2o_node_spec);
    spec.op_type = op_type.c_str();
    spec.domain = domain.c_str();
    spec.inputs = in.data();
    spec.num_inputs = (int32_t)in.size();
    spec.num_outputs = num_outputs;
    spec.attrs = raw_attrs.data();
    spec.num_attrs = (int32_t)raw_attrs.size();
    std::vector<t2o_value> out((size_t)num_outputs, T2O_NO_VALUE);
    check(host_->emit_node(raw_, &spec, out.data()));
    std::vector<Value> result;
    for (auto id : out) result.push_back(wrap(id));
    return result;
  }

  // The ONNX tensor behind a value (constants become initializers).
  Value as_onnx(const Value& v) {
    if (v.ctx_ == nullptr) fail("empty value");
    t2o_value out = T2O_NO_VALUE;
    check(host_->value_as_onnx(raw_, v.id(), &out));
    return wrap(out);
  }

  // Constant tensors (initializers).
  Value tensor(t2o_dtype dtype, const std::vector<int64_t>& dims, const void* data, size_t nbytes) {
    t2o_value out = T2O_NO_VALUE;
    check(host_->make_tensor(raw_, dtype, dims.data(), (int32_t)dims.size(), data, nbytes, &out));
    return wrap(out);
  }
  Value const_i64(const std::vector<int64_t>& values) {  // 1-D
    return tensor(T2O_DTYPE_INT64, {(int64_t)values.size()}, values.data(), values.size() * sizeof(int64_t));
  }
  Value scalar_i64(int64_t v) { return tensor(T2O_DTYPE_INT64, {}, &v, sizeof v); }
  Value const_f32(const std::vector<float>& values) {
    return tensor(T2O_DTYPE_FLOAT, {(int64_t)values.size()}, values.data(), values.size() * sizeof(float));
  }
  // A 0-d constant of the given element type holding v.
  Value scalar(t2o_dtype dtype, double v);

  // Non-tensor values, to bind as outputs (e.g. aten::size on a static dim binds an int).
  Value make_int(int64_t v) { t2o_value o; check(host_->make_int(raw_, v, &o)); return wrap(o); }
  Value make_float(double v) { t2o_value o; check(host_->make_float(raw_, v, &o)); return wrap(o); }
  Value make_bool(bool v) { t2o_value o; check(host_->make_bool(raw_, v ? 1 : 0, &o)); return wrap(o); }
  Value make_none() { t2o_value o; check(host_->make_none(raw_, &o)); return wrap(o); }
  Value make_list(const std::vector<Value>& items) {
    std::vector<t2o_value> ids;
    for (const auto& v : items) ids.push_back(v.id());
    t2o_value o;
    check(host_->make_list(raw_, ids.data(), (int64_t)ids.size(), &o));
    return wrap(o);
  }
  Value make_dynamic_scalar(const Value& tensor, t2o_kind kind) {
    t2o_value o;
    check(host_->make_dynamic_scalar(raw_, tensor.id(), kind, &o));
    return wrap(o);
  }
  // ABI 1.3: an ONNX optional (kind OPTIONAL) holding `element` (a tensor), or an empty one of a tensor
  // of `dtype` and `rank` when element is None or omitted (Value()). ONNX Optional: opset 15+.
  Value make_optional(const Value& element, t2o_dtype dtype, int32_t rank) {
    if (!T2O_HOST_HAS(*this, make_optional)) fail("optional values need a torch2onnx host of ABI 1.3 or newer");
    t2o_value o;
    check(host_->make_optional(raw_, element.id(), dtype, rank, &o));
    return wrap(o);
  }

  // ---- ABI 1.1: blocks and subgraphs (control flow); see plugin.h ----
  bool has_blocks_api() const { return T2O_HOST_HAS(*this, subgraph_end); }
  int32_t num_blocks() { return blocks_api().node_num_blocks(raw_); }
  int32_t block_num_inputs(int32_t block) { return blocks_api().block_num_inputs(raw_, block); }
  int32_t block_num_outputs(int32_t block) { return blocks_api().block_num_outputs(raw_, block); }
  Value block_input(int32_t block, int32_t i) { return wrap(blocks_api().block_input(raw_, block, i)); }
  Value block_output(int32_t block, int32_t i) { return wrap(blocks_api().block_output(raw_, block, i)); }
  void subgraph_begin(const std::string& name_hint) { check(blocks_api().subgraph_begin(raw_, name_hint.c_str())); }
  Value subgraph_input(t2o_kind kind, t2o_dtype dtype, int32_t rank, const std::vector<int64_t>& dims = {}) {
    t2o_value o = T2O_NO_VALUE;
    check(blocks_api().subgraph_input(raw_, kind, dtype, rank, dims.empty() ? nullptr : dims.data(), &o));
    return wrap(o);
  }
  // Converts block `block` into the open subgraph (or, with none open, into the current graph).
  std::vector<Value> convert_block(int32_t block, const std::vector<Value>& params) {
    std::vector<t2o_value> in;
    for (const auto& p : params) in.push_back(p.id());
    int32_t n = block_num_outputs(block);
    if (n < 0) fail(kind() + ": no block " + std::to_string(block));
    std::vector<t2o_value> out((size_t)n, T2O_NO_VALUE);
    check(blocks_api().convert_block(raw_, block, in.data(), (int32_t)in.size(), out.data()));
    std::vector<Value> result;
    for (auto id : out) result.push_back(wrap(id));
    return result;
  }
  Value subgraph_end(const std::vector<Value>& outputs) {
    std::vector<t2o_value> ids;
    for (const auto& v : outputs) ids.push_back(v.id());
    t2o_value g = T2O_NO_VALUE;
    check(blocks_api().subgraph_end(raw_, ids.data(), (int32_t)ids.size(), &g));
    return wrap(g);
  }

  void set_type(const Value& v, t2o_dtype dtype, const std::vector<int64_t>& dims) {
    check(host_->value_set_type(raw_, v.id(), dtype, (int32_t)dims.size(), dims.data()));
  }
  void set_output(int32_t index, const Value& v) { check(host_->set_output(raw_, index, v.id())); }

  std::string unique_name(const std::string& hint) { return host_->unique_name(raw_, hint.c_str()); }
  void warn(const std::string& message) { host_->log(raw_, 2, message.c_str()); }
  void info(const std::string& message) { host_->log(raw_, 1, message.c_str()); }

  Value wrap(t2o_value id) { return Value(this, id); }
  void check(t2o_status s) {
    // The host already recorded its message; this only unwinds the symbolic.
    if (s != T2O_OK) throw HostError{s};
  }

  struct HostError {
    t2o_status code;
  };

 private:
  const t2o_host_api& blocks_api() {
    if (!has_blocks_api()) fail(kind() + ": control flow needs a host with plugin ABI 1.1 (this host speaks 1.0)");
    return *host_;
  }
  const t2o_host_api* host_;
  t2o_ctx* raw_;
};

// ---- Value, defined once Ctx is complete ----
inline t2o_kind Value::kind() const { return (t2o_kind)ctx_->host()->value_kind(ctx_->raw(), id_); }
inline bool Value::is_const() const { return ctx_->host()->value_is_constant(ctx_->raw(), id_) != 0; }
inline t2o_dtype Value::dtype() const { return (t2o_dtype)ctx_->host()->value_dtype(ctx_->raw(), id_); }
inline int32_t Value::rank() const { return ctx_->host()->value_rank(ctx_->raw(), id_); }
inline int64_t Value::dim(int32_t axis) const { return ctx_->host()->value_dim(ctx_->raw(), id_, axis); }
inline std::vector<int64_t> Value::dims() const {
  std::vector<int64_t> d;
  int32_t r = rank();
  for (int32_t i = 0; i < r; ++i) d.push_back(dim(i));
  return d;
}
inline bool Value::has_static_shape() const {
  if (rank() < 0) return false;
  for (auto d : dims())
    if (d < 0) return false;
  return true;
}
inline int64_t Value::to_int() const {
  int64_t v = 0;
  ctx_->check(ctx_->host()->value_int(ctx_->raw(), id_, &v));
  return v;
}
inline double Value::to_float() const {
  double v = 0;
  ctx_->check(ctx_->host()->value_float(ctx_->raw(), id_, &v));
  return v;
}
inline bool Value::to_bool() const { return to_int() != 0; }
inline std::string Value::to_string() const {
  const char* s = nullptr;
  ctx_->check(ctx_->host()->value_string(ctx_->raw(), id_, &s));
  return s ? s : "";
}
inline int64_t Value::list_size() const {
  int64_t n = 0;
  ctx_->check(ctx_->host()->value_list_size(ctx_->raw(), id_, &n));
  return n;
}
inline Value Value::item(int64_t index) const {
  t2o_value v = T2O_NO_VALUE;
  ctx_->check(ctx_->host()->value_list_item(ctx_->raw(), id_, index, &v));
  return Value(ctx_, v);
}
inline std::vector<Value> Value::items() const {
  std::vector<Value> out;
  int64_t n = list_size();
  for (int64_t i = 0; i < n; ++i) out.push_back(item(i));
  return out;
}
inline std::pair<const void*, size_t> Value::tensor_data() const {
  const void* p = nullptr;
  size_t n = 0;
  ctx_->check(ctx_->host()->value_tensor_data(ctx_->raw(), id_, &p, &n));
  return {p, n};
}
inline std::vector<int64_t> Value::to_ints() const {
  std::vector<int64_t> out;
  t2o_kind k = kind();
  if (k == T2O_KIND_LIST) {
    for (const auto& v : items()) out.push_back(v.to_int());
  } else if (k == T2O_KIND_INT || k == T2O_KIND_BOOL) {
    out.push_back(to_int());
  } else if (k == T2O_KIND_TENSOR && is_const()) {
    auto data = tensor_data();
    t2o_dtype dt = dtype();
    if (dt == T2O_DTYPE_INT64) {
      auto p = static_cast<const int64_t*>(data.first);
      out.assign(p, p + data.second / sizeof(int64_t));
    } else if (dt == T2O_DTYPE_INT32) {
      auto p = static_cast<const int32_t*>(data.first);
      for (size_t i = 0; i < data.second / sizeof(int32_t); ++i) out.push_back(p[i]);
    } else {
      fail("expected an integer tensor");
    }
  } else {
    fail("expected a constant list of ints");
  }
  return out;
}
inline std::vector<double> Value::to_floats() const {
  std::vector<double> out;
  if (kind() == T2O_KIND_LIST) {
    for (const auto& v : items()) out.push_back(v.to_float());
  } else {
    out.push_back(to_float());
  }
  return out;
}

inline Value Ctx::scalar(t2o_dtype dtype, double v) {
  switch (dtype) {
    case T2O_DTYPE_FLOAT: { float x = (float)v; return tensor(dtype, {}, &x, sizeof x); }
    case T2O_DTYPE_DOUBLE: return tensor(dtype, {}, &v, sizeof v);
    case T2O_DTYPE_INT64: { int64_t x = (int64_t)v; return tensor(dtype, {}, &x, sizeof x); }
    case T2O_DTYPE_INT32: { int32_t x = (int32_t)v; return tensor(dtype, {}, &x, sizeof x); }
    case T2O_DTYPE_INT16: { int16_t x = (int16_t)v; return tensor(dtype, {}, &x, sizeof x); }
    case T2O_DTYPE_INT8: { int8_t x = (int8_t)v; return tensor(dtype, {}, &x, sizeof x); }
    case T2O_DTYPE_UINT8: { uint8_t x = (uint8_t)v; return tensor(dtype, {}, &x, sizeof x); }
    case T2O_DTYPE_BOOL: { uint8_t x = v != 0; return tensor(dtype, {}, &x, sizeof x); }
    case T2O_DTYPE_FLOAT16:
    case T2O_DTYPE_BFLOAT16: {
      // Make it in float and cast, so the pack needs no half-precision arithmetic.
      float x = (float)v;
      Value f = tensor(T2O_DTYPE_FLOAT, {}, &x, sizeof x);
      return op("Cast", {f}, {Attr::i("to", dtype)});
    }
    default: fail("scalar: unsupported element type " + std::to_string((int)dtype));
  }
}

// ---- registration ----
using SymbolicFn = void (*)(Ctx&);

namespace detail {
struct Entry {
  std::string op;
  std::string domain;
  int64_t since_opset;
  SymbolicFn fn;
  uint32_t flags;
};
// Per pack (hidden visibility): every T2O_SYMBOLIC in the pack's sources appends here at load.
inline std::deque<Entry>& entries() {
  static std::deque<Entry> list;
  return list;
}
inline std::deque<std::string>& schemas() {
  static std::deque<std::string> list;
  return list;
}
struct AutoRegister {
  AutoRegister(const char* op, const char* domain, int64_t since, SymbolicFn fn, uint32_t flags) {
    entries().push_back(Entry{op, domain, since, fn, flags});
  }
};
struct AutoSchema {
  explicit AutoSchema(const char* schema) { schemas().push_back(schema); }
};

inline t2o_status trampoline(const t2o_host_api* host, t2o_ctx* raw, void* user_data) {
  auto* entry = static_cast<const Entry*>(user_data);
  try {
    Ctx ctx(host, raw);
    entry->fn(ctx);
    return T2O_OK;
  } catch (const Ctx::HostError& e) {
    return e.code;  // message already set by the host
  } catch (const Error& e) {
    host->set_error(raw, e.what());
    return e.code();
  } catch (const std::exception& e) {
    host->set_error(raw, (std::string("C++ exception in symbolic: ") + e.what()).c_str());
    return T2O_ERROR;
  } catch (...) {
    host->set_error(raw, "unknown C++ exception in symbolic");
    return T2O_ERROR;
  }
}

inline t2o_status register_all(const t2o_registrar_api* api, t2o_registrar* reg) {
  try {
    for (const auto& schema : schemas()) {
      t2o_status s = api->declare_schema(reg, schema.c_str());
      if (s != T2O_OK) return s;
    }
    for (const auto& e : entries()) {
      t2o_symbolic_desc d{};
      d.struct_size = sizeof(t2o_symbolic_desc);
      d.op = e.op.c_str();
      d.domain = e.domain.c_str();
      d.since_opset = e.since_opset;
      d.fn = &trampoline;
      d.user_data = const_cast<Entry*>(&e);
      d.flags = e.flags;
      t2o_status s = api->register_symbolic(reg, &d);
      if (s != T2O_OK) return s;
    }
    return T2O_OK;
  } catch (const std::exception& e) {
    api->set_error(reg, e.what());
    return T2O_ERROR;
  } catch (...) {
    api->set_error(reg, "unknown C++ exception while registering");
    return T2O_ERROR;
  }
}
}  // namespace detail
}  // namespace t2o

#define T2O_CONCAT_INNER(a, b) a##b
#define T2O_CONCAT(a, b) T2O_CONCAT_INNER(a, b)

// Defines a symbolic for OP (qualified TorchScript name) in DOMAIN's opset from SINCE on.
#define T2O_SYMBOLIC_EX(OP, DOMAIN, SINCE, FLAGS) T2O_SYMBOLIC_IMPL_(T2O_CONCAT(t2o_symbolic_, __COUNTER__), OP, DOMAIN, SINCE, FLAGS)
#define T2O_SYMBOLIC_IMPL_(NAME, OP, DOMAIN, SINCE, FLAGS)                                             \
  static void NAME(::t2o::Ctx& ctx);                                                                  \
  static ::t2o::detail::AutoRegister T2O_CONCAT(NAME, _reg)(OP, DOMAIN, SINCE, &NAME, FLAGS);         \
  static void NAME([[maybe_unused]] ::t2o::Ctx& ctx)
// A symbolic for the default ONNX domain.
#define T2O_SYMBOLIC(OP, SINCE) T2O_SYMBOLIC_EX(OP, "", SINCE, 0u)
// ABI 1.3: a symbolic that reads OPTIONAL inputs itself (see T2O_SYMBOLIC_OPTIONALS).
#define T2O_OPTIONALS_SYMBOLIC(OP, SINCE) T2O_SYMBOLIC_EX(OP, "", SINCE, T2O_SYMBOLIC_OPTIONALS)

// Declares a custom TorchScript op schema so models calling it load without its kernels.
#define T2O_SCHEMA(SCHEMA) static ::t2o::detail::AutoSchema T2O_CONCAT(t2o_schema_, __COUNTER__)(SCHEMA)

// The pack's entry point: once per pack.
#define T2O_PLUGIN(NAME, VERSION)                                                        \
  extern "C" T2O_EXPORT const t2o_plugin_descriptor* T2O_ENTRY_SYMBOL(void) {            \
    static const t2o_plugin_descriptor descriptor = {sizeof(t2o_plugin_descriptor),      \
                                                     T2O_ABI_MAJOR, T2O_ABI_MINOR, NAME, \
                                                     VERSION, &::t2o::detail::register_all}; \
    return &descriptor;                                                                  \
  }

#endif  // TORCH2ONNX_PLUGIN_HPP
