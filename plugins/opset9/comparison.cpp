// aten::eq/ne/lt/le/gt/ge (+ in-place eq_ ...) on tensors (-> Equal/Less/Greater, Not) and on Python numbers
// (constant-folded, or run-time scalars). Opset forms: Equal on floats needs 11, GreaterOrEqual /
// LessOrEqual need 12 (before: built from Less/Greater/IsNaN, NaN-exact).
#include <torch2onnx/plugin.hpp>

#include "common/promote.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

// equal / or_equal (forms.hpp): the opset 9/11/12 forms of ==, <=, >=.

Value compare_tensors(Ctx& ctx, Cmp op, const Value& a, const Value& b, t2o_dtype dt) {
  switch (op) {
    case Cmp::Eq: return equal(ctx, a, b, dt);
    case Cmp::Ne: return ctx.op("Not", {equal(ctx, a, b, dt)});
    case Cmp::Lt: return ctx.op("Less", {a, b});
    case Cmp::Gt: return ctx.op("Greater", {a, b});
    case Cmp::Le: return or_equal(ctx, "Less", "Greater", a, b, dt);
    case Cmp::Ge: return or_equal(ctx, "Greater", "Less", a, b, dt);
  }
  fail("unreachable");
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
  t2o_dtype dt = comparison_dtype(a, b);
  Value y = compare_tensors(ctx, op, to_dtype(ctx, a, dt), to_dtype(ctx, b, dt), dt);
  if (scalars) return ctx.set_output(0, ctx.make_dynamic_scalar(y, T2O_KIND_BOOL));
  // In-place forms (eq_ ...) keep self's dtype.
  t2o_dtype out = output_dtype(ctx, 0, T2O_DTYPE_BOOL);
  if (out != T2O_DTYPE_BOOL) y = ctx.op("Cast", {y}, {Attr::i("to", out)});
  ctx.set_output(0, y);
}

}  // namespace

T2O_SYMBOLIC("aten::eq", 9) { compare(ctx, Cmp::Eq); }
T2O_SYMBOLIC("aten::ne", 9) { compare(ctx, Cmp::Ne); }
T2O_SYMBOLIC("aten::lt", 9) { compare(ctx, Cmp::Lt); }
T2O_SYMBOLIC("aten::le", 9) { compare(ctx, Cmp::Le); }
T2O_SYMBOLIC("aten::gt", 9) { compare(ctx, Cmp::Gt); }
T2O_SYMBOLIC("aten::ge", 9) { compare(ctx, Cmp::Ge); }
T2O_SYMBOLIC("aten::eq_", 9) { compare(ctx, Cmp::Eq); }
T2O_SYMBOLIC("aten::ne_", 9) { compare(ctx, Cmp::Ne); }
T2O_SYMBOLIC("aten::lt_", 9) { compare(ctx, Cmp::Lt); }
T2O_SYMBOLIC("aten::le_", 9) { compare(ctx, Cmp::Le); }
T2O_SYMBOLIC("aten::gt_", 9) { compare(ctx, Cmp::Gt); }
T2O_SYMBOLIC("aten::ge_", 9) { compare(ctx, Cmp::Ge); }
// Aliases.
T2O_SYMBOLIC("aten::greater", 9) { compare(ctx, Cmp::Gt); }
T2O_SYMBOLIC("aten::greater_equal", 9) { compare(ctx, Cmp::Ge); }
T2O_SYMBOLIC("aten::less", 9) { compare(ctx, Cmp::Lt); }
T2O_SYMBOLIC("aten::less_equal", 9) { compare(ctx, Cmp::Le); }
T2O_SYMBOLIC("aten::not_equal", 9) { compare(ctx, Cmp::Ne); }
