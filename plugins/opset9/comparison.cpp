// aten::eq/ne/lt/le/gt/ge on tensors (-> Equal/Less/Greater, Not) and on Python numbers
// (constant-folded, or run-time scalars). Opset forms: Equal on floats needs 11 (before: not(a<b or
// a>b), which differs only for NaN); GreaterOrEqual/LessOrEqual need 12 (before: Not(Less/Greater)).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

Value equal(Ctx& ctx, const Value& a, const Value& b, t2o_dtype dt) {
  if (is_float_dtype(dt) && ctx.opset() < 11)
    return ctx.op("Not", {ctx.op("Or", {ctx.op("Less", {a, b}), ctx.op("Greater", {a, b})})});
  return ctx.op("Equal", {a, b});
}

Value compare_tensors(Ctx& ctx, Cmp op, const Value& a, const Value& b, t2o_dtype dt) {
  switch (op) {
    case Cmp::Eq: return equal(ctx, a, b, dt);
    case Cmp::Ne: return ctx.op("Not", {equal(ctx, a, b, dt)});
    case Cmp::Lt: return ctx.op("Less", {a, b});
    case Cmp::Gt: return ctx.op("Greater", {a, b});
    case Cmp::Le:
      return ctx.opset() >= 12 ? ctx.op("LessOrEqual", {a, b}) : ctx.op("Not", {ctx.op("Greater", {a, b})});
    case Cmp::Ge:
      return ctx.opset() >= 12 ? ctx.op("GreaterOrEqual", {a, b}) : ctx.op("Not", {ctx.op("Less", {a, b})});
  }
  fail("unreachable");
}

// The dtype both operands are compared in.
t2o_dtype common_dtype(const Value& a, const Value& b) {
  bool at = a.kind() == T2O_KIND_TENSOR, bt = b.kind() == T2O_KIND_TENSOR;
  t2o_dtype da = scalar_dtype(a), db = scalar_dtype(b);
  if (da == db) return da;
  if (at && !bt) return is_float_dtype(db) && !is_float_dtype(da) ? db : da;
  if (bt && !at) return is_float_dtype(da) && !is_float_dtype(db) ? da : db;
  if (is_float_dtype(da) != is_float_dtype(db)) return is_float_dtype(da) ? da : db;
  if (!at && !bt) return T2O_DTYPE_FLOAT;  // int vs float scalars handled above; bool vs int
  return T2O_DTYPE_INT64;
}

void compare(Ctx& ctx, Cmp op) {
  Value a = ctx.input(0), b = ctx.input(1);
  bool scalars = is_scalar_kind(a.kind()) && is_scalar_kind(b.kind());
  if (scalars && a.is_const() && b.is_const()) {
    double x = a.to_float(), y = b.to_float();
    bool r = false;
    if (a.kind() != T2O_KIND_FLOAT && b.kind() != T2O_KIND_FLOAT) {
      int64_t i = a.to_int(), j = b.to_int();
      r = op == Cmp::Eq ? i == j : op == Cmp::Ne ? i != j : op == Cmp::Lt ? i < j
        : op == Cmp::Le ? i <= j : op == Cmp::Gt ? i > j : i >= j;
    } else {
      r = op == Cmp::Eq ? x == y : op == Cmp::Ne ? x != y : op == Cmp::Lt ? x < y
        : op == Cmp::Le ? x <= y : op == Cmp::Gt ? x > y : x >= y;
    }
    return ctx.set_output(0, ctx.make_bool(r));
  }
  if (!(a.kind() == T2O_KIND_TENSOR || is_scalar_kind(a.kind())) ||
      !(b.kind() == T2O_KIND_TENSOR || is_scalar_kind(b.kind())))
    unsupported(ctx.kind() + ": comparing values that are not numbers or tensors");
  t2o_dtype dt = common_dtype(a, b);
  Value y = compare_tensors(ctx, op, to_dtype(ctx, a, dt), to_dtype(ctx, b, dt), dt);
  if (scalars) return ctx.set_output(0, ctx.make_dynamic_scalar(y, T2O_KIND_BOOL));
  ctx.set_output(0, y);
}

}  // namespace

T2O_SYMBOLIC("aten::eq", 9) { compare(ctx, Cmp::Eq); }
T2O_SYMBOLIC("aten::ne", 9) { compare(ctx, Cmp::Ne); }
T2O_SYMBOLIC("aten::lt", 9) { compare(ctx, Cmp::Lt); }
T2O_SYMBOLIC("aten::le", 9) { compare(ctx, Cmp::Le); }
T2O_SYMBOLIC("aten::gt", 9) { compare(ctx, Cmp::Gt); }
T2O_SYMBOLIC("aten::ge", 9) { compare(ctx, Cmp::Ge); }
