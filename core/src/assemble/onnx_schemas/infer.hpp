// Helpers for writing the post-17 schemas: type lists, reading constant inputs, shape arithmetic.
#ifndef TORCH2ONNX_CORE_ONNX_SCHEMAS_INFER_HPP
#define TORCH2ONNX_CORE_ONNX_SCHEMAS_INFER_HPP

#include "common/onnx_compat.hpp"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace t2o::core::onnx_schemas {

using onnx::AttributeProto;
using onnx::InferenceContext;
using onnx::OpSchema;
using onnx::TensorProto;
using onnx::TensorShapeProto;

// A schema of the default domain (ai.onnx) at `since`; `line` is where it is written (ONNX's
// registry names it in its own errors).
inline OpSchema onnx_schema(const char* name, int since, const char* file, int line) {
  OpSchema s(name, file, line);
  s.SetDomain("");
  s.SinceVersion(since);
  return s;
}
#define T2O_SCHEMA(name, since) ::t2o::core::onnx_schemas::onnx_schema(name, since, __FILE__, __LINE__)

// Element types as ONNX 1.12 can name them (the specs' float8/int4/float4 types have no TensorProto
// enum value in 1.12, so no model this exporter writes can use them). ONNX's own lists are named
// differently in 1.12 and later releases: common/onnx_compat.hpp.
inline std::vector<std::string> float_types() {
  return {"tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)"};
}
inline std::vector<std::string> integer_types() {
  return {"tensor(uint8)", "tensor(uint16)", "tensor(uint32)", "tensor(uint64)",
          "tensor(int8)",  "tensor(int16)",  "tensor(int32)",  "tensor(int64)"};
}
inline std::vector<std::string> all_types() { return onnx_compat::all_tensor_types_with_bfloat(); }
inline std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

constexpr auto kOptional = OpSchema::Optional;
constexpr auto kVariadic = OpSchema::Variadic;

// Whether optional input i is given (an omitted one has no name, hence no type).
inline bool has_input(InferenceContext& ctx, size_t i) {
  return i < ctx.getNumInputs() && ctx.getInputType(i) != nullptr;
}

// The values of input i when it is a constant (an initializer or a Constant node's output) of int64
// or int32; nothing otherwise.
inline std::optional<std::vector<int64_t>> const_ints(InferenceContext& ctx, size_t i) {
  if (i >= ctx.getNumInputs()) return std::nullopt;
  const TensorProto* t = ctx.getInputData(i);
  if (!t) return std::nullopt;
  std::vector<int64_t> out;
  if (t->data_type() == TensorProto::INT64) {
    if (t->has_raw_data()) {
      out.resize(t->raw_data().size() / sizeof(int64_t));
      std::memcpy(out.data(), t->raw_data().data(), out.size() * sizeof(int64_t));
    } else {
      out.assign(t->int64_data().begin(), t->int64_data().end());
    }
  } else if (t->data_type() == TensorProto::INT32) {
    if (t->has_raw_data()) {
      std::vector<int32_t> v(t->raw_data().size() / sizeof(int32_t));
      std::memcpy(v.data(), t->raw_data().data(), v.size() * sizeof(int32_t));
      out.assign(v.begin(), v.end());
    } else {
      out.assign(t->int32_data().begin(), t->int32_data().end());
    }
  } else {
    return std::nullopt;
  }
  return out;
}

// Rank of input i, -1 when unknown.
inline int rank_of(InferenceContext& ctx, size_t i) {
  return has_input(ctx, i) && onnx::hasInputShape(ctx, i) ? onnx::getInputShape(ctx, i).dim_size() : -1;
}

// An axis in [-rank, rank) as a non-negative index; fails shape inference otherwise.
inline int normalize_axis(int64_t axis, int rank, const char* what) {
  if (axis < -rank || axis >= rank)
    fail_shape_inference(what, " ", axis, " is out of range for a rank-", rank, " input");
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

inline std::string string_attr(InferenceContext& ctx, const char* name, const std::string& fallback) {
  const AttributeProto* a = ctx.getAttribute(name);
  return a && a->has_s() ? a->s() : fallback;
}

inline std::vector<int64_t> ints_attr(InferenceContext& ctx, const char* name) {
  std::vector<int64_t> v;
  onnx::getRepeatedAttribute(ctx, name, v);
  return v;
}

// Output 0: input 0's element type and shape (elementwise ops).
inline void same_as_input0(InferenceContext& ctx) { onnx::propagateShapeAndTypeFromFirstInput(ctx); }

// Spatial output size of a sliding window (Conv/Pool arithmetic); -1 when `in` is unknown.
inline int64_t window_out(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
                          int64_t pad_end, bool ceil_mode) {
  if (in < 0) return -1;
  int64_t pad_total = pad_begin + pad_end;
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t num = in + pad_total - span;
  if (num < 0) fail_shape_inference("the window (", span, ") is larger than the padded input (", in + pad_total, ")");
  int64_t out = (ceil_mode ? (num + stride - 1) / stride : num / stride) + 1;
  // With ceil_mode, the last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

inline void set_dim(TensorShapeProto* shape, int64_t v) {
  auto* d = shape->add_dim();
  if (v >= 0) d->set_dim_value(v);
}

// Input i's dim d value, or -1 when unknown.
inline int64_t dim_value(InferenceContext& ctx, size_t i, int d) {
  if (!has_input(ctx, i) || !onnx::hasInputShape(ctx, i)) return -1;
  const auto& s = onnx::getInputShape(ctx, i);
  if (d < 0 || d >= s.dim_size() || !s.dim(d).has_dim_value()) return -1;
  return s.dim(d).dim_value();
}

}  // namespace t2o::core::onnx_schemas

#endif
