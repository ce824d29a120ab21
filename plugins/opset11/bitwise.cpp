// aten::bitwise_and/or/xor (+ in-place), __and__/__or__/__xor__ (+ __iand__/__ior__/__ixor__):
// the `&`, `|`, `^` operators. Bool tensors -> And/Or/Xor (as opset9/logical.cpp). Integer tensors,
// which need BitwiseAnd/Or/Xor (opset 18), are decomposed from opset 11 (BitShift): both operands
// are widened to int64 and reinterpreted as uint64, each of the result type's B bits is isolated
// with two shifts (x << (63 - k) >> 63) along a new last axis of size B, the bits are combined
// arithmetically (and: a b, or: a + b - a b, xor: a + b - 2 a b) and summed back with weights 2^k
// (-2^63 for the sign bit: two's complement, no overflow; 64 bits as two exact 32-bit sums).
// Exact for every integer type.
#include <torch2onnx/plugin.hpp>

#include <cstdint>

#include "common/promote.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

enum class Bit { And, Or, Xor };

Value bits_of(Ctx& ctx, const Value& v, int64_t rank, const Value& left, const Value& right) {
  Value u = ctx.op("Cast", {to_dtype(ctx, v, T2O_DTYPE_INT64)}, {Attr::i("to", T2O_DTYPE_UINT64)});
  Value e = unsqueeze(ctx, u, {rank});
  Value isolated = ctx.op("BitShift", {ctx.op("BitShift", {e, left}, {Attr::s("direction", "LEFT")}), right},
                          {Attr::s("direction", "RIGHT")});
  return ctx.op("Cast", {isolated}, {Attr::i("to", T2O_DTYPE_INT64)});
}

void bitwise(Ctx& ctx, Bit which, const char* bool_op) {
  Value a = ctx.input(0), b = ctx.input(1);
  t2o_dtype dt = output_dtype(ctx, 0, result_type({a, b}));
  if (a.kind() == T2O_KIND_INT && b.kind() == T2O_KIND_INT && a.is_const() && b.is_const()) {
    int64_t x = a.to_int(), y = b.to_int();
    return ctx.set_output(0, ctx.make_int(which == Bit::And ? (x & y) : which == Bit::Or ? (x | y) : (x ^ y)));
  }
  if (a.kind() == T2O_KIND_BOOL && b.kind() == T2O_KIND_BOOL && a.is_const() && b.is_const()) {
    bool x = a.to_bool(), y = b.to_bool();
    return ctx.set_output(0, ctx.make_bool(which == Bit::And ? (x && y) : which == Bit::Or ? (x || y) : (x != y)));
  }
  if (dt == T2O_DTYPE_BOOL) {
    Value y = ctx.op(bool_op, {to_dtype(ctx, a, T2O_DTYPE_BOOL), to_dtype(ctx, b, T2O_DTYPE_BOOL)});
    if (a.kind() != T2O_KIND_TENSOR && b.kind() != T2O_KIND_TENSOR)
      return ctx.set_output(0, ctx.make_dynamic_scalar(y, T2O_KIND_BOOL));
    return ctx.set_output(0, y);
  }
  if (!is_int_dtype(dt)) unsupported(ctx.kind() + ": operands of element type " + std::to_string((int)dt) +
                                     " (bool and integers only)");
  int64_t ra = a.kind() == T2O_KIND_TENSOR ? a.rank() : 0, rb = b.kind() == T2O_KIND_TENSOR ? b.rank() : 0;
  if (ra < 0 || rb < 0) unsupported(ctx.kind() + ": operand ranks unknown");
  int64_t rank = ra > rb ? ra : rb;
  int64_t width = dtype_bits(dt);
  std::vector<int64_t> left, weights;
  for (int64_t k = 0; k < width; ++k) {
    left.push_back(63 - k);
    weights.push_back(k == 63 ? INT64_MIN : (int64_t)1 << k);
  }
  // Shift amounts as int64 constants cast to uint64 (the host makes no uint64 initializers).
  Value lshift = ctx.op("Cast", {ctx.const_i64(left)}, {Attr::i("to", T2O_DTYPE_UINT64)});
  Value rshift = ctx.op("Cast", {ctx.const_i64({63})}, {Attr::i("to", T2O_DTYPE_UINT64)});
  // (a..., B) and (b..., B): the bit axes align, the operands broadcast as before.
  Value ba = bits_of(ctx, a, ra, lshift, rshift), bb = bits_of(ctx, b, rb, lshift, rshift);
  Value prod = ctx.op("Mul", {ba, bb});
  Value sum = ctx.op("Add", {ba, bb});
  Value bits = which == Bit::And ? prod
               : which == Bit::Or ? ctx.op("Sub", {sum, prod})
                                  : ctx.op("Sub", {sum, ctx.op("Mul", {prod, ctx.scalar_i64(2)})});
  // ONNX Runtime's int64 ReduceSum is not exact beyond 2^53: 64 bits are summed as two 32-bit
  // halves (each exact) and joined with integer Mul/Add.
  Value y;
  if (width <= 32) {
    y = reduce(ctx, "ReduceSum", ctx.op("Mul", {bits, ctx.const_i64(weights)}), {rank}, false);
  } else {
    std::vector<int64_t> half_weights;
    for (int64_t k = 0; k < 32; ++k) half_weights.push_back((int64_t)1 << k);
    std::vector<int64_t> top_weights = half_weights;
    top_weights[31] = -((int64_t)1 << 31);  // the sign bit
    Value lo = reduce(ctx, "ReduceSum", ctx.op("Mul", {slice(ctx, bits, {rank}, {0}, {32}), ctx.const_i64(half_weights)}),
                      {rank}, false);
    Value hi = reduce(ctx, "ReduceSum", ctx.op("Mul", {slice(ctx, bits, {rank}, {32}, {64}), ctx.const_i64(top_weights)}),
                      {rank}, false);
    y = ctx.op("Add", {ctx.op("Mul", {hi, ctx.scalar_i64((int64_t)1 << 32)}), lo});
  }
  if (dt != T2O_DTYPE_INT64) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
  ctx.set_output(0, y);
}

}  // namespace

T2O_SYMBOLIC("aten::bitwise_and", 11) { bitwise(ctx, Bit::And, "And"); }
T2O_SYMBOLIC("aten::bitwise_and_", 11) { bitwise(ctx, Bit::And, "And"); }
T2O_SYMBOLIC("aten::__and__", 11) { bitwise(ctx, Bit::And, "And"); }
T2O_SYMBOLIC("aten::__iand__", 11) { bitwise(ctx, Bit::And, "And"); }
T2O_SYMBOLIC("aten::bitwise_or", 11) { bitwise(ctx, Bit::Or, "Or"); }
T2O_SYMBOLIC("aten::bitwise_or_", 11) { bitwise(ctx, Bit::Or, "Or"); }
T2O_SYMBOLIC("aten::__or__", 11) { bitwise(ctx, Bit::Or, "Or"); }
T2O_SYMBOLIC("aten::__ior__", 11) { bitwise(ctx, Bit::Or, "Or"); }
T2O_SYMBOLIC("aten::bitwise_xor", 11) { bitwise(ctx, Bit::Xor, "Xor"); }
T2O_SYMBOLIC("aten::bitwise_xor_", 11) { bitwise(ctx, Bit::Xor, "Xor"); }
T2O_SYMBOLIC("aten::__xor__", 11) { bitwise(ctx, Bit::Xor, "Xor"); }
T2O_SYMBOLIC("aten::__ixor__", 11) { bitwise(ctx, Bit::Xor, "Xor"); }
