// Helpers of the quantized pack: quantization parameters as ONNX constants, and the
// QuantizeLinear → DequantizeLinear pair that rounds a float result to its quantized grid.
//
// Representation (README.md): a quantized TorchScript tensor is, in ONNX, a FLOAT tensor holding its
// dequantized values. A quantized op is its float ONNX form on dequantized inputs, followed by
// QuantizeLinear(output_scale, output_zero_point) and DequantizeLinear: torch.onnx's QDQ form, which
// ONNX Runtime fuses into QLinearConv, QLinearMatMul, QLinearAdd … where its kernels fit.
#ifndef TORCH2ONNX_PACK_QUANTIZED_QDQ_HPP
#define TORCH2ONNX_PACK_QUANTIZED_QDQ_HPP

#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace t2o {
namespace quant {

// c10::ScalarType numbers of the quantized types (a ScalarType argument is an int constant).
constexpr int64_t kQInt8 = 12, kQUInt8 = 13, kQInt32 = 14;

inline const char* qtype_name(t2o_dtype d) {
  return d == T2O_DTYPE_UINT8 ? "quint8" : d == T2O_DTYPE_INT8 ? "qint8" : d == T2O_DTYPE_INT32 ? "qint32" : "?";
}

// The integer type of a ScalarType argument naming a quantized type.
inline t2o_dtype qtype_of_scalar_type(Ctx& ctx, int64_t st, const char* arg = "dtype") {
  if (st == kQUInt8) return T2O_DTYPE_UINT8;
  if (st == kQInt8) return T2O_DTYPE_INT8;
  if (st == kQInt32) return T2O_DTYPE_INT32;
  unsupported(ctx.kind() + ": " + arg + "=" + std::to_string(st) + " is not quint8, qint8 or qint32");
}

// The integer type of the node's quantized result: what the example run saw at output `i`; else that
// of the first quantized input (a value the run did not record); quint8 when neither is known.
inline t2o_dtype result_qtype(Ctx& ctx, int32_t i = 0) {
  t2o_dtype d = ctx.output_quantized_dtype(i);
  for (int32_t k = 0; d == T2O_DTYPE_UNDEFINED && k < ctx.num_inputs(); ++k) d = ctx.input_quantized_dtype(k);
  if (d == T2O_DTYPE_UNDEFINED) return T2O_DTYPE_UINT8;
  if (d != T2O_DTYPE_UINT8 && d != T2O_DTYPE_INT8 && d != T2O_DTYPE_INT32)
    fail(ctx.kind() + ": the host reports quantized element type " + std::to_string(d));
  return d;
}

// A 0-d zero point of the integer type `q` (range-checked: PyTorch checks it too).
inline Value zero_point_const(Ctx& ctx, t2o_dtype q, int64_t zp, const char* arg = "zero_point") {
  if (q == T2O_DTYPE_UINT8) {
    if (zp < 0 || zp > 255) unsupported(ctx.kind() + ": " + arg + "=" + std::to_string(zp) + " is outside quint8's 0..255");
    uint8_t v = uint8_t(zp);
    return ctx.tensor(q, {}, &v, 1);
  }
  if (q == T2O_DTYPE_INT8) {
    if (zp < -128 || zp > 127) unsupported(ctx.kind() + ": " + arg + "=" + std::to_string(zp) + " is outside qint8's -128..127");
    int8_t v = int8_t(zp);
    return ctx.tensor(q, {}, &v, 1);
  }
  int32_t v = int32_t(zp);
  return ctx.tensor(T2O_DTYPE_INT32, {}, &v, 4);
}

inline Value scale_const(Ctx& ctx, double scale) {
  float s = float(scale);
  return ctx.tensor(T2O_DTYPE_FLOAT, {}, &s, 4);
}

// QuantizeLinear's output types: uint8 and int8 (int32 is a DequantizeLinear input only).
inline void check_quantizable(Ctx& ctx, t2o_dtype q) {
  if (q == T2O_DTYPE_INT32)
    unsupported(ctx.kind() + ": a qint32 result: ONNX QuantizeLinear produces uint8 or int8 only");
}

// x (float) rounded to the grid of (scale, zero_point) of type q, as PyTorch stores it:
// QuantizeLinear then DequantizeLinear. scale/zero_point: ONNX values (0-d, or 1-D with axis >= 0).
inline Value qdq(Ctx& ctx, const Value& x, const Value& scale, const Value& zero_point, int64_t axis = -1) {
  std::vector<Attr> attrs;
  if (axis >= 0) {
    if (ctx.opset() < 13)
      unsupported(ctx.kind() + ": per-channel quantization (axis=" + std::to_string(axis) +
                  ") needs --opset 13 (QuantizeLinear/DequantizeLinear take an axis from opset 13)");
    attrs.push_back(Attr::i("axis", axis));
  }
  Value q = ctx.op("QuantizeLinear", {x, scale, zero_point}, attrs);
  return ctx.op("DequantizeLinear", {q, scale, zero_point}, attrs);
}

// The usual case: the output_scale / output_zero_point arguments of a quantized op.
inline Value requantize(Ctx& ctx, const Value& x, int32_t scale_arg, int32_t zero_point_arg, int32_t output = 0) {
  t2o_dtype q = result_qtype(ctx, output);
  check_quantizable(ctx, q);
  Value s = ctx.input(scale_arg), z = ctx.input(zero_point_arg);
  if (!s.is_const() || !z.is_const())
    unsupported(ctx.kind() + ": output_scale/output_zero_point known only at run time");
  return qdq(ctx, x, scale_const(ctx, s.to_float()), zero_point_const(ctx, q, z.to_int(), "output_zero_point"));
}

// Bytes of a constant tensor argument (its dtype as the host holds it).
inline std::vector<uint8_t> const_bytes(Ctx& ctx, const Value& v, const char* what) {
  if (!v.is_const()) unsupported(ctx.kind() + ": " + what + " is not a constant");
  auto data = v.tensor_data();
  const uint8_t* p = static_cast<const uint8_t*>(data.first);
  return std::vector<uint8_t>(p, p + data.second);
}

// A constant int64 / int32 tensor's elements.
inline std::vector<int64_t> const_int_elements(Ctx& ctx, const Value& v, const char* what) {
  auto bytes = const_bytes(ctx, v, what);
  std::vector<int64_t> out;
  if (v.dtype() == T2O_DTYPE_INT64) {
    out.resize(bytes.size() / 8);
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * 8);
  } else if (v.dtype() == T2O_DTYPE_INT32) {
    std::vector<int32_t> tmp(bytes.size() / 4);
    if (!tmp.empty()) std::memcpy(tmp.data(), bytes.data(), tmp.size() * 4);
    out.assign(tmp.begin(), tmp.end());
  } else {
    unsupported(ctx.kind() + ": " + what + " is not an integer tensor");
  }
  return out;
}

// Zero points (one per channel) as a 1-D constant of the integer type q.
inline Value zero_points_const(Ctx& ctx, t2o_dtype q, const std::vector<int64_t>& zps) {
  const int64_t n = int64_t(zps.size());
  if (q == T2O_DTYPE_UINT8 || q == T2O_DTYPE_INT8) {
    std::vector<uint8_t> bytes(zps.size());
    for (size_t i = 0; i < zps.size(); ++i) {
      int64_t lo = q == T2O_DTYPE_UINT8 ? 0 : -128, hi = q == T2O_DTYPE_UINT8 ? 255 : 127;
      if (zps[i] < lo || zps[i] > hi)
        unsupported(ctx.kind() + ": zero point " + std::to_string(zps[i]) + " is outside " + qtype_name(q) + "'s range");
      int8_t s = int8_t(zps[i]);
      std::memcpy(&bytes[i], &s, 1);
    }
    return ctx.tensor(q, {n}, bytes.data(), bytes.size());
  }
  std::vector<int32_t> v(zps.begin(), zps.end());
  return ctx.tensor(T2O_DTYPE_INT32, {n}, v.data(), v.size() * 4);
}

}  // namespace quant
}  // namespace t2o

#endif
