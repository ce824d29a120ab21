// Bit shifts on integer tensors (PyTorch 1.13 has no float shifts):
//   aten::__lshift__.Tensor(Tensor self, Tensor other) / .Scalar(Tensor self, Scalar other), __ilshift__
//   aten::bitwise_left_shift.Tensor / .Tensor_Scalar / .Scalar_Tensor (+ bitwise_left_shift_)
//   aten::__rshift__, __irshift__, aten::bitwise_right_shift (same overloads)
// ONNX BitShift takes unsigned types only, so the shifts are arithmetic on int64: x << y is
// x * 2^y (wrapping, then cast back to the result type: the low bits, as PyTorch's unsigned shift),
// x >> y is floor(x / 2^y) (arithmetic shift; Div truncates toward zero, so negative x with a
// remainder is lowered by one). 2^y is made exactly as Pow in double, cast to int64. Shift amounts
// outside [0, bits) are undefined in PyTorch (C++ shifts) and are not matched.
#include <torch2onnx/plugin.hpp>

#include "common/promote.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void shift(Ctx& ctx, bool left) {
  Value a = ctx.input(0), b = ctx.input(1);
  t2o_dtype dt = output_dtype(ctx, 0, result_type({a, b}));
  if (!is_int_dtype(dt)) unsupported(ctx.kind() + ": shifts of element type " + std::to_string((int)dt) + " (integers only)");
  Value x = to_dtype(ctx, a, T2O_DTYPE_INT64);
  Value y = to_dtype(ctx, b, T2O_DTYPE_DOUBLE);
  Value pow2 = ctx.op("Cast", {ctx.op("Pow", {ctx.scalar(T2O_DTYPE_DOUBLE, 2.0), y})}, {Attr::i("to", T2O_DTYPE_INT64)});
  Value r;
  if (left) {
    r = ctx.op("Mul", {x, pow2});
  } else {
    Value q = ctx.op("Div", {x, pow2});
    Value rem = ctx.op("Sub", {x, ctx.op("Mul", {q, pow2})});
    Value adjust = ctx.op("Cast", {ctx.op("Less", {rem, ctx.scalar_i64(0)})}, {Attr::i("to", T2O_DTYPE_INT64)});
    r = ctx.op("Sub", {q, adjust});
  }
  if (dt != T2O_DTYPE_INT64) r = ctx.op("Cast", {r}, {Attr::i("to", dt)});
  ctx.set_output(0, r);
}

}  // namespace

T2O_SYMBOLIC("aten::__lshift__", 9) { shift(ctx, true); }
T2O_SYMBOLIC("aten::__ilshift__", 9) { shift(ctx, true); }
T2O_SYMBOLIC("aten::bitwise_left_shift", 9) { shift(ctx, true); }
T2O_SYMBOLIC("aten::bitwise_left_shift_", 9) { shift(ctx, true); }
T2O_SYMBOLIC("aten::__rshift__", 9) { shift(ctx, false); }
T2O_SYMBOLIC("aten::__irshift__", 9) { shift(ctx, false); }
T2O_SYMBOLIC("aten::bitwise_right_shift", 9) { shift(ctx, false); }
T2O_SYMBOLIC("aten::bitwise_right_shift_", 9) { shift(ctx, false); }
