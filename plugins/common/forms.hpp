// ONNX operators whose form changed across opsets 9..18, and the features later opsets add: each
// helper emits the form valid at ctx.opset(), so a symbolic written once for opset 9 stays valid at
// every later target. Auxiliary nodes only: an op's own form change is a registration in opsetN/.
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_FORMS_HPP
#define TORCH2ONNX_PACK_COMMON_FORMS_HPP

#include <torch2onnx/plugin.hpp>

#include <cfloat>
#include <cstdint>
#include <string>
#include <vector>

#include "float64_forms.hpp"
#include "util.hpp"

namespace t2o {
namespace pack {

// What an ONNX opset adds that a symbolic may want (an operator, a type an operator accepts, an
// attribute): the one table of those opsets. Symbolics ask `has(ctx, feature)` or `require(...)`
// and never read ctx.opset() themselves (plugins/README.md: one rule for opset variation).
struct OnnxFeature {
  int64_t since;     // the first opset that has it
  const char* what;  // as a refusal names it
};
namespace feature {
constexpr OnnxFeature kMod{10, "Mod"};
constexpr OnnxFeature kSliceSteps{10, "Slice with steps"};
constexpr OnnxFeature kSliceInputs{10, "Slice with run-time bounds"};
constexpr OnnxFeature kPoolDilations{10, "pooling dilations"};
constexpr OnnxFeature kPoolCeilMode{10, "pooling ceil_mode"};
constexpr OnnxFeature kRange{11, "Range"};
constexpr OnnxFeature kCumSumRange{11, "CumSum and Range"};
constexpr OnnxFeature kSequences{11, "sequences: SequenceConstruct, SequenceAt"};
constexpr OnnxFeature kSplitToSequence{11, "SplitToSequence"};
constexpr OnnxFeature kClipInputs{11, "Clip with min/max inputs, min > max allowed"};
constexpr OnnxFeature kRound{11, "Round"};
constexpr OnnxFeature kGatherElements{11, "GatherElements"};
constexpr OnnxFeature kScatterElements{11, "ScatterElements"};
constexpr OnnxFeature kEqualOnFloats{11, "Equal on floating types"};
constexpr OnnxFeature kStableTopK{11, "TopK that breaks ties by index"};
constexpr OnnxFeature kIntegerPad{11, "Pad of integer tensors"};
constexpr OnnxFeature kIfMergesBranchShapes{11, "If whose output shapes merge both branches"};
constexpr OnnxFeature kOrEqual{12, "GreaterOrEqual / LessOrEqual"};
constexpr OnnxFeature kIntegerMaxMin{12, "Max / Min on integers"};
constexpr OnnxFeature kIntegerClipPow{12, "Clip / Pow on integers"};
constexpr OnnxFeature kSmallIntegerArithmetic{14, "Add/Sub/Mul/Div on 8- and 16-bit integers"};
constexpr OnnxFeature kReshapeAllowZero{14, "Reshape allowzero"};
// Optional-15 exists, but If and Loop carry optionals only from 16 (ONNX Runtime has no If-13 kernel
// for them): the form torch.onnx 1.13 writes at 15 does not load.
constexpr OnnxFeature kOptional{16, "optionals through If and Loop: Optional, OptionalHasElement, OptionalGetElement"};
constexpr OnnxFeature kDynamicQuantizeLinear{11, "DynamicQuantizeLinear"};
constexpr OnnxFeature kPerChannelQuantization{13, "QuantizeLinear/DequantizeLinear axis"};
constexpr OnnxFeature kUint8Clip{13, "Clip of uint8 values"};
constexpr OnnxFeature kHardSwish{14, "HardSwish"};
constexpr OnnxFeature kBatchNormWithoutMomentum{14, "BatchNormalization without momentum"};
constexpr OnnxFeature kLayerNormalization{17, "LayerNormalization"};
constexpr OnnxFeature kSplitNumOutputs{18, "Split num_outputs"};
}  // namespace feature

inline bool has(Ctx& ctx, OnnxFeature f) { return ctx.opset() >= f.since; }

// Refuses, naming what needs the feature: "aten::trilu: dynamic last two dims need --opset 11 (Range)".
inline void require(Ctx& ctx, OnnxFeature f, const std::string& what_needs_it) {
  if (!has(ctx, f))
    unsupported(ctx.kind() + ": " + what_needs_it + " needs --opset " + std::to_string(f.since) + " (" + f.what + ")");
}

// ScatterElements (from 11) or its opset-9 name Scatter (same semantics, no reduction).
inline Value scatter_elements(Ctx& ctx, const Value& data, const Value& index, const Value& updates, int64_t axis) {
  return ctx.op(has(ctx, feature::kScatterElements) ? "ScatterElements" : "Scatter", {data, index, updates},
                {Attr::i("axis", axis)});
}

// a == b elementwise in dtype `dt`. Equal takes floats from 11; before, "neither a < b nor a > b,
// and neither is NaN" (PyTorch: NaN equals nothing).
inline Value equal(Ctx& ctx, const Value& a, const Value& b, t2o_dtype dt) {
  if (is_float_dtype(dt) && !has(ctx, feature::kEqualOnFloats)) {
    Value ordered = ctx.op("Or", {ctx.op("Less", {a, b}), ctx.op("Greater", {a, b})});
    Value nan = ctx.op("Or", {ctx.op("IsNaN", {a}), ctx.op("IsNaN", {b})});
    return ctx.op("Not", {ctx.op("Or", {ordered, nan})});
  }
  return ctx.op("Equal", {a, b});
}

// a >= b (strict "Greater", inverse "Less") or a <= b: the *OrEqual ops from 12; before, floats as
// "a > b or a == b" (false for NaN, as in PyTorch) and integers as "not a < b".
inline Value or_equal(Ctx& ctx, const char* strict, const char* inverse, const Value& a, const Value& b,
                      t2o_dtype dt) {
  if (has(ctx, feature::kOrEqual)) return ctx.op(std::string(strict) + "OrEqual", {a, b});
  if (is_float_dtype(dt)) return ctx.op("Or", {ctx.op(strict, {a, b}), equal(ctx, a, b, dt)});
  return ctx.op("Not", {ctx.op(inverse, {a, b})});
}

// x reversed along `axis`: Slice with step -1 (from 10).
inline Value flip_axis(Ctx& ctx, const Value& x, int64_t axis) {
  require(ctx, feature::kSliceSteps, "reversing an axis");
  return ctx.op("Slice", {x, ctx.const_i64({-1}), ctx.const_i64({INT64_MIN}), ctx.const_i64({axis}),
                          ctx.const_i64({-1})});
}

// The dtype Add/Sub/Mul/Div compute `dt` in: 8- and 16-bit integers only from 14, int32 before
// (the caller casts back, wrapping around as PyTorch does).
inline t2o_dtype arithmetic_dtype(Ctx& ctx, t2o_dtype dt) {
  bool small = dt == T2O_DTYPE_UINT8 || dt == T2O_DTYPE_INT8 || dt == T2O_DTYPE_INT16;
  return small && !has(ctx, feature::kSmallIntegerArithmetic) ? T2O_DTYPE_INT32 : dt;
}

// Unsqueeze: `axes` attribute up to opset 12, input from 13. Axes are in the output's numbering.
inline Value unsqueeze(Ctx& ctx, const Value& x, const std::vector<int64_t>& axes) {
  if (ctx.opset() >= 13) return ctx.op("Unsqueeze", {x, ctx.const_i64(axes)});
  return ctx.op("Unsqueeze", {x}, {Attr::ints("axes", axes)});
}

// Squeeze: `axes` attribute up to 12, optional input from 13. Empty axes = every 1-sized axis.
inline Value squeeze(Ctx& ctx, const Value& x, const std::vector<int64_t>& axes) {
  if (axes.empty()) return ctx.op("Squeeze", {x});
  if (ctx.opset() >= 13) return ctx.op("Squeeze", {x, ctx.const_i64(axes)});
  return ctx.op("Squeeze", {x}, {Attr::ints("axes", axes)});
}

// Reduce* with optional axes (empty = all axes). ReduceSum takes axes as an input from 13, the
// other Reduce* ops from 18.
inline Value reduce(Ctx& ctx, const std::string& op_type, const Value& x, const std::vector<int64_t>& axes,
                    bool keepdims) {
  int64_t input_form_since = op_type == "ReduceSum" ? 13 : 18;
  std::vector<Attr> attrs{Attr::i("keepdims", keepdims ? 1 : 0)};
  if (ctx.opset() >= input_form_since) {
    if (axes.empty()) return ctx.op(op_type, {x}, attrs);  // noop_with_empty_axes=0: reduce all
    return ctx.op(op_type, {x, ctx.const_i64(axes)}, attrs);
  }
  if (!axes.empty()) attrs.push_back(Attr::ints("axes", axes));
  return ctx.op(op_type, {x}, attrs);
}

// Clip: min/max attributes (float only) up to 10; optional inputs of x's dtype `dt` from 11
// (integer types from 12). has_min/has_max false = unbounded.
// (Values emitted by a symbolic have no known dtype, so callers pass it.)
inline Value clip(Ctx& ctx, const Value& x, t2o_dtype dt, bool has_min, double min, bool has_max, double max) {
  // ONNX Runtime has float64 Clip kernels from opset 12 only
  if (dt == T2O_DTYPE_DOUBLE && ctx.opset() < 12) return f64_clamp(ctx, x, has_min, min, has_max, max);
  if (ctx.opset() >= 11) {
    Value lo = has_min ? ctx.scalar(dt, min) : Value();
    Value hi = has_max ? ctx.scalar(dt, max) : Value();
    if (!has_max) return ctx.op("Clip", {x, lo});
    return ctx.op("Clip", {x, lo, hi});
  }
  std::vector<Attr> attrs;
  if (has_min) attrs.push_back(Attr::f("min", min));
  if (has_max) attrs.push_back(Attr::f("max", max));
  return ctx.op("Clip", {x}, attrs);
}

// Constant-mode Pad: pads (ONNX order: all begins, then all ends) and value are attributes up to
// 10, inputs from 11 (the value then has x's dtype `dt`).
inline Value pad_constant(Ctx& ctx, const Value& x, t2o_dtype dt, const std::vector<int64_t>& pads,
                          double value = 0.0) {
  if (ctx.opset() >= 11) return ctx.op("Pad", {x, ctx.const_i64(pads), ctx.scalar(dt, value)},
                                       {Attr::s("mode", "constant")});
  return ctx.op("Pad", {x}, {Attr::ints("pads", pads), Attr::s("mode", "constant"), Attr::f("value", value)});
}

// Slice: starts/ends/axes attributes at 9, inputs (plus steps) from 10. Steps need opset 10.
inline Value slice(Ctx& ctx, const Value& x, const std::vector<int64_t>& axes, const std::vector<int64_t>& starts,
                   const std::vector<int64_t>& ends, const std::vector<int64_t>& steps = {}) {
  bool unit_steps = true;
  for (auto s : steps) unit_steps = unit_steps && s == 1;
  if (ctx.opset() >= 10) {
    std::vector<Value> in{x, ctx.const_i64(starts), ctx.const_i64(ends), ctx.const_i64(axes)};
    if (!unit_steps) in.push_back(ctx.const_i64(steps));
    return ctx.op("Slice", in);
  }
  if (!unit_steps) unsupported(ctx.kind() + ": slicing with step " + str(steps) + " needs opset >= 10");
  return ctx.op("Slice", {x}, {Attr::ints("axes", axes), Attr::ints("starts", starts), Attr::ints("ends", ends)});
}

// Softmax / LogSoftmax over one axis. Up to opset 12 the op flattens the input to 2-D at `axis`,
// which equals PyTorch's per-axis softmax only when axis is the last one: otherwise the axis is
// transposed to the end and back. From 13 `axis` is per-axis.
inline Value softmax(Ctx& ctx, const std::string& op_type, const Value& x, int64_t axis, int64_t rank) {
  if (ctx.opset() >= 13 || axis == rank - 1) return ctx.op(op_type, {x}, {Attr::i("axis", axis)});
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[axis], perm[rank - 1]);  // self-inverse
  Value t = ctx.op("Transpose", {x}, {Attr::ints("perm", perm)});
  Value s = ctx.op(op_type, {t}, {Attr::i("axis", rank - 1)});
  return ctx.op("Transpose", {s}, {Attr::ints("perm", perm)});
}

// DFT (opset 17+) of `x` (..., 1 or 2: real, or real and imaginary parts) along `axis` (not the last,
// non-negative), padded or trimmed to `length` when it is valid (a 0-d int64 tensor). `axis` is an
// attribute at 17, an input from 20.
inline Value dft(Ctx& ctx, const Value& x, const Value& length, int64_t axis, bool inverse, bool onesided) {
  std::vector<Attr> attrs{Attr::i("inverse", inverse ? 1 : 0), Attr::i("onesided", onesided ? 1 : 0)};
  if (ctx.opset() >= 20) return ctx.op("DFT", {x, length, ctx.scalar_i64(axis)}, attrs);
  if (ctx.opset() < 17) unsupported(ctx.kind() + ": DFT needs opset >= 17");
  attrs.push_back(Attr::i("axis", axis));
  return ctx.op("DFT", {x, length}, attrs);
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_FORMS_HPP
