// aten::bitwise_and/or/xor/not and the operators `&`, `|`, `^`, `~` -> BitwiseAnd/Or/Xor/Not (new in
// opset 18) on integer tensors; bool tensors keep And/Or/Xor/Not as at opset 9 (whose symbolic
// refused `&`, `|`, `^` on integers and wrote `~x` as -x-1).
// bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor  (also .Scalar, __and__, and the in-place forms)
// bitwise_not(Tensor self) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/promote.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// ONNX's Bitwise* take the 8 integer types; PyTorch's bitwise ops are defined on bool and integers.
void require_bitwise_dtype(Ctx& ctx, t2o_dtype dt) {
  if (!is_int_dtype(dt)) unsupported(ctx.kind() + ": element type " + std::to_string((int)dt) + " (bool and integers only)");
}

void bitwise_binary(Ctx& ctx, const char* bool_op, const char* int_op) {
  Value a = ctx.input(0), b = ctx.input(1);
  if (a.kind() == T2O_KIND_INT && b.kind() == T2O_KIND_INT && a.is_const() && b.is_const()) {
    int64_t x = a.to_int(), y = b.to_int();
    std::string t = bool_op;
    return ctx.set_output(0, ctx.make_int(t == "And" ? (x & y) : t == "Or" ? (x | y) : (x ^ y)));
  }
  // In-place forms keep self's dtype: output_dtype reads the TorchScript result.
  t2o_dtype dt = output_dtype(ctx, 0, result_type({a, b}));
  if (dt == T2O_DTYPE_BOOL)
    return ctx.set_output(0, ctx.op(bool_op, {to_dtype(ctx, a, dt), to_dtype(ctx, b, dt)}));
  require_bitwise_dtype(ctx, dt);
  ctx.set_output(0, ctx.op(int_op, {to_dtype(ctx, a, dt), to_dtype(ctx, b, dt)}));
}

void bitwise_not(Ctx& ctx) {
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  if (dt == T2O_DTYPE_BOOL) return ctx.set_output(0, ctx.op("Not", {x}));
  require_bitwise_dtype(ctx, dt);
  ctx.set_output(0, ctx.op("BitwiseNot", {x}));
}

}  // namespace

T2O_SYMBOLIC("aten::bitwise_and", 18) { bitwise_binary(ctx, "And", "BitwiseAnd"); }
T2O_SYMBOLIC("aten::bitwise_and_", 18) { bitwise_binary(ctx, "And", "BitwiseAnd"); }
T2O_SYMBOLIC("aten::__and__", 18) { bitwise_binary(ctx, "And", "BitwiseAnd"); }
T2O_SYMBOLIC("aten::__iand__", 18) { bitwise_binary(ctx, "And", "BitwiseAnd"); }
T2O_SYMBOLIC("aten::bitwise_or", 18) { bitwise_binary(ctx, "Or", "BitwiseOr"); }
T2O_SYMBOLIC("aten::bitwise_or_", 18) { bitwise_binary(ctx, "Or", "BitwiseOr"); }
T2O_SYMBOLIC("aten::__or__", 18) { bitwise_binary(ctx, "Or", "BitwiseOr"); }
T2O_SYMBOLIC("aten::__ior__", 18) { bitwise_binary(ctx, "Or", "BitwiseOr"); }
T2O_SYMBOLIC("aten::bitwise_xor", 18) { bitwise_binary(ctx, "Xor", "BitwiseXor"); }
T2O_SYMBOLIC("aten::bitwise_xor_", 18) { bitwise_binary(ctx, "Xor", "BitwiseXor"); }
T2O_SYMBOLIC("aten::__xor__", 18) { bitwise_binary(ctx, "Xor", "BitwiseXor"); }
T2O_SYMBOLIC("aten::__ixor__", 18) { bitwise_binary(ctx, "Xor", "BitwiseXor"); }
T2O_SYMBOLIC("aten::bitwise_not", 18) { bitwise_not(ctx); }
T2O_SYMBOLIC("aten::bitwise_not_", 18) { bitwise_not(ctx); }
