// Fake quantization (quantization-aware training) as ONNX QDQ: QuantizeLinear → DequantizeLinear
// with the fake quantizer's scale and zero point, as torch.onnx exports it.
//   (quant_min, quant_max) = (0, 255) → uint8, (-128, 127) → int8,
//   (0, 127) → uint8 with a Clip to 0..127 between the two nodes (opset 13, as torch.onnx; refused below).
//   Other ranges are refused (QuantizeLinear saturates to the full 8-bit range only).
// aten::fused_moving_avg_obs_fake_quant (torch.ao's default QAT fake quantizer) is rewritten into these
// by the core before freezing when its observer is off (core/src/prepare/quantized_params.cpp).
#include <torch2onnx/plugin.hpp>

#include <cstring>

#include "common/forms.hpp"
#include "common/values.hpp"
#include "qdq.hpp"

using namespace t2o;
using namespace t2o::quant;

namespace {

struct Range {
  t2o_dtype q;
  bool clip127;
};

Range range_of(Ctx& ctx, int64_t lo, int64_t hi) {
  if (lo == 0 && hi == 255) return {T2O_DTYPE_UINT8, false};
  if (lo == -128 && hi == 127) return {T2O_DTYPE_INT8, false};
  if (lo == 0 && hi == 127) {
    pack::require(ctx, pack::feature::kUint8Clip, "quant_min=0, quant_max=127");
    return {T2O_DTYPE_UINT8, true};
  }
  unsupported(ctx.kind() + ": quant_min=" + std::to_string(lo) + ", quant_max=" + std::to_string(hi) +
              " (ONNX QuantizeLinear saturates to 0..255 or -128..127; (0, 127) from opset 13)");
}

// Constant float tensor elements (scale tensors of the fake quantizers: float32 or float64).
std::vector<float> const_floats(Ctx& ctx, const Value& v, const char* what) {
  auto bytes = const_bytes(ctx, v, what);
  std::vector<float> out;
  if (v.dtype() == T2O_DTYPE_FLOAT) {
    out.resize(bytes.size() / 4);
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * 4);
  } else if (v.dtype() == T2O_DTYPE_DOUBLE) {
    std::vector<double> d(bytes.size() / 8);
    if (!d.empty()) std::memcpy(d.data(), bytes.data(), d.size() * 8);
    out.assign(d.begin(), d.end());
  } else {
    unsupported(ctx.kind() + ": " + what + " is not a float tensor");
  }
  return out;
}

// QuantizeLinear (+ Clip) → DequantizeLinear; axis < 0: per tensor.
Value fake_quantize(Ctx& ctx, const Value& x, const Value& scale, const Value& zero_point, int64_t axis, Range r) {
  std::vector<Attr> attrs;
  if (axis >= 0) {
    pack::require(ctx, pack::feature::kPerChannelQuantization,
                  "per-channel fake quantization (axis=" + std::to_string(axis) + ")");
    attrs.push_back(Attr::i("axis", axis));
  }
  Value q = ctx.op("QuantizeLinear", {x, scale, zero_point}, attrs);
  if (r.clip127) q = pack::clip(ctx, q, T2O_DTYPE_UINT8, true, 0, true, 127);
  return ctx.op("DequantizeLinear", {q, scale, zero_point}, attrs);
}

// Per-tensor scale / zero point arguments: numbers, or one-element tensors (constant or not).
Value per_tensor_scale(Ctx& ctx, const Value& v) {
  if (!v.is_tensor()) return scale_const(ctx, v.to_float());
  if (v.is_const()) {
    auto s = const_floats(ctx, v, "scale");
    if (s.size() != 1) unsupported(ctx.kind() + ": scale has " + std::to_string(s.size()) + " elements (expected one)");
    return scale_const(ctx, s[0]);
  }
  Value t = pack::cast_to(ctx, ctx.as_onnx(v), T2O_DTYPE_FLOAT);
  return ctx.op("Reshape", {t, ctx.const_i64({})});
}

Value per_tensor_zero_point(Ctx& ctx, const Value& v, t2o_dtype q) {
  if (!v.is_tensor()) return zero_point_const(ctx, q, v.to_int());
  if (v.is_const()) {
    auto z = const_int_elements(ctx, v, "zero_point");
    if (z.size() != 1) unsupported(ctx.kind() + ": zero_point has " + std::to_string(z.size()) + " elements (expected one)");
    return zero_point_const(ctx, q, z[0]);
  }
  Value t = pack::cast_to(ctx, ctx.as_onnx(v), q);
  return ctx.op("Reshape", {t, ctx.const_i64({})});
}

Value per_channel(Ctx& ctx, const Value& x, const Value& scale, const Value& zero_point, int64_t axis, Range r) {
  if (axis < 0) axis += x.rank();
  Value s = scale.is_const() ? [&] {
    auto f = const_floats(ctx, scale, "scale");
    return ctx.tensor(T2O_DTYPE_FLOAT, {int64_t(f.size())}, f.data(), f.size() * 4);
  }() : pack::cast_to(ctx, ctx.as_onnx(scale), T2O_DTYPE_FLOAT);
  Value z = zero_point.is_const() ? zero_points_const(ctx, r.q, const_int_elements(ctx, zero_point, "zero_point"))
                                  : pack::cast_to(ctx, ctx.as_onnx(zero_point), r.q);
  return fake_quantize(ctx, x, s, z, axis, r);
}

}  // namespace

// aten::fake_quantize_per_tensor_affine(Tensor self, float scale, int zero_point, int quant_min, int quant_max) -> Tensor
// aten::fake_quantize_per_tensor_affine.tensor_qparams(Tensor self, Tensor scale, Tensor zero_point,
//                                                      int quant_min, int quant_max) -> Tensor
T2O_SYMBOLIC("aten::fake_quantize_per_tensor_affine", 10) {
  Range r = range_of(ctx, ctx.input(3).to_int(), ctx.input(4).to_int());
  ctx.set_output(0, fake_quantize(ctx, ctx.input(0), per_tensor_scale(ctx, ctx.input(1)),
                                  per_tensor_zero_point(ctx, ctx.input(2), r.q), -1, r));
}

// aten::fake_quantize_per_channel_affine(Tensor self, Tensor scale, Tensor zero_point, int axis,
//                                        int quant_min, int quant_max) -> Tensor
T2O_SYMBOLIC("aten::fake_quantize_per_channel_affine", 10) {
  Range r = range_of(ctx, ctx.input(4).to_int(), ctx.input(5).to_int());
  ctx.set_output(0, per_channel(ctx, ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3).to_int(), r));
}
