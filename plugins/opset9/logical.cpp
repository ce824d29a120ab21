// aten::logical_and/or/xor/not (any dtype: non-zero is true) and the bitwise ops
// aten::bitwise_and/or/xor/not, __and__/__or__/__xor__ (the `&`, `|`, `^`, `~` operators),
// + in-place variants.
// ONNX And/Or/Xor/Not take bool only. Bitwise ops on integers: `~x` is -x-1 (two's complement),
// `&`, `|`, `^` on integers are decomposed from opset 11 (opset11/bitwise.cpp) and refused here.
#include <torch2onnx/plugin.hpp>

#include "common/promote.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

Value as_bool(Ctx& ctx, const Value& v) { return to_dtype(ctx, v, T2O_DTYPE_BOOL); }

// Binds y (bool); in-place forms on a non-bool self keep self's dtype.
void set_bool_output(Ctx& ctx, Value y) {
  t2o_dtype out = output_dtype(ctx, 0, T2O_DTYPE_BOOL);
  if (out != T2O_DTYPE_BOOL) y = ctx.op("Cast", {y}, {Attr::i("to", out)});
  ctx.set_output(0, y);
}

void logical(Ctx& ctx, const char* op_type) {
  Value a = ctx.input(0), b = ctx.input(1);
  // Python bools (scripted `a and b` on run-time bools).
  if (a.kind() == T2O_KIND_BOOL && b.kind() == T2O_KIND_BOOL && a.is_const() && b.is_const()) {
    bool x = a.to_bool(), y = b.to_bool();
    std::string t = op_type;
    return ctx.set_output(0, ctx.make_bool(t == "And" ? (x && y) : t == "Or" ? (x || y) : (x != y)));
  }
  Value y = ctx.op(op_type, {as_bool(ctx, a), as_bool(ctx, b)});
  if (a.kind() != T2O_KIND_TENSOR && b.kind() != T2O_KIND_TENSOR)
    return ctx.set_output(0, ctx.make_dynamic_scalar(y, T2O_KIND_BOOL));
  set_bool_output(ctx, y);
}

void logical_not(Ctx& ctx) {
  Value x = ctx.input(0);
  if (x.kind() == T2O_KIND_BOOL && x.is_const()) return ctx.set_output(0, ctx.make_bool(!x.to_bool()));
  set_bool_output(ctx, ctx.op("Not", {as_bool(ctx, x)}));
}

void bitwise(Ctx& ctx, const char* op_type) {
  Value a = ctx.input(0), b = ctx.input(1);
  t2o_dtype dt = output_dtype(ctx, 0, result_type({a, b}));
  if (dt != T2O_DTYPE_BOOL) {
    if (a.kind() == T2O_KIND_INT && b.kind() == T2O_KIND_INT && a.is_const() && b.is_const()) {
      int64_t x = a.to_int(), y = b.to_int();
      std::string t = op_type;
      return ctx.set_output(0, ctx.make_int(t == "And" ? (x & y) : t == "Or" ? (x | y) : (x ^ y)));
    }
    unsupported(ctx.kind() + ": bitwise " + op_type + " on integers needs opset >= 11 (decomposed with BitShift, "
                "opset11/bitwise.cpp); only bool tensors are supported at opsets 9-10");
  }
  logical(ctx, op_type);
}

void bitwise_not(Ctx& ctx) {
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  if (dt == T2O_DTYPE_BOOL) return ctx.set_output(0, ctx.op("Not", {x}));
  if (dt != T2O_DTYPE_UINT8 && dt != T2O_DTYPE_INT8 && dt != T2O_DTYPE_INT16 && dt != T2O_DTYPE_INT32 &&
      dt != T2O_DTYPE_INT64)
    unsupported(ctx.kind() + ": input of element type " + std::to_string((int)dt) + " (bool and integers only)");
  // Sub takes 8/16-bit integers only from 14: compute in int32 and cast back (wraps around).
  t2o_dtype work = dt;
  if (dt != T2O_DTYPE_INT64) work = arithmetic_dtype(ctx, dt);
  Value in = cast_to(ctx, x, work);
  // ~x == -x - 1 in two's complement, 255 - x for uint8.
  Value y = dt == T2O_DTYPE_UINT8 ? ctx.op("Sub", {ctx.scalar(work, 255), in})
                                  : ctx.op("Sub", {ctx.op("Neg", {in}), ctx.scalar(work, 1)});
  if (work != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
  ctx.set_output(0, y);
}

}  // namespace

T2O_SYMBOLIC("aten::logical_and", 9) { logical(ctx, "And"); }
T2O_SYMBOLIC("aten::logical_and_", 9) { logical(ctx, "And"); }
T2O_SYMBOLIC("aten::logical_or", 9) { logical(ctx, "Or"); }
T2O_SYMBOLIC("aten::logical_or_", 9) { logical(ctx, "Or"); }
T2O_SYMBOLIC("aten::logical_xor", 9) { logical(ctx, "Xor"); }
T2O_SYMBOLIC("aten::logical_xor_", 9) { logical(ctx, "Xor"); }
T2O_SYMBOLIC("aten::logical_not", 9) { logical_not(ctx); }
T2O_SYMBOLIC("aten::logical_not_", 9) { logical_not(ctx); }
T2O_SYMBOLIC("aten::__not__", 9) { logical_not(ctx); }

T2O_SYMBOLIC("aten::bitwise_and", 9) { bitwise(ctx, "And"); }
T2O_SYMBOLIC("aten::bitwise_and_", 9) { bitwise(ctx, "And"); }
T2O_SYMBOLIC("aten::__and__", 9) { bitwise(ctx, "And"); }
T2O_SYMBOLIC("aten::__iand__", 9) { bitwise(ctx, "And"); }
T2O_SYMBOLIC("aten::bitwise_or", 9) { bitwise(ctx, "Or"); }
T2O_SYMBOLIC("aten::bitwise_or_", 9) { bitwise(ctx, "Or"); }
T2O_SYMBOLIC("aten::__or__", 9) { bitwise(ctx, "Or"); }
T2O_SYMBOLIC("aten::__ior__", 9) { bitwise(ctx, "Or"); }
T2O_SYMBOLIC("aten::bitwise_xor", 9) { bitwise(ctx, "Xor"); }
T2O_SYMBOLIC("aten::bitwise_xor_", 9) { bitwise(ctx, "Xor"); }
T2O_SYMBOLIC("aten::__xor__", 9) { bitwise(ctx, "Xor"); }
T2O_SYMBOLIC("aten::__ixor__", 9) { bitwise(ctx, "Xor"); }
T2O_SYMBOLIC("aten::bitwise_not", 9) { bitwise_not(ctx); }
T2O_SYMBOLIC("aten::bitwise_not_", 9) { bitwise_not(ctx); }
