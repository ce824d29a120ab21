// prim::min / prim::max: TorchScript's min()/max() of Python numbers, as run-time scalars.
//   prim::min.int(int a, int b) -> int            prim::min.float(float a, float b) -> float
//   prim::min.int_float / float_int(...) -> float prim::min(Scalar a, Scalar b) -> Scalar
//   prim::min.self_int(int[] self) -> int         prim::min.self_float(float[] self) -> float
//   prim::min.int_list(int[] a, int[] b) -> int[] (lexicographic; constant lists only)
// Constant operands fold to a constant; otherwise each step is Where(Less(b, m), b, m) (Greater
// for max), which keeps the first of equal operands as Python does and works on int64 at every
// opset (elementwise Min/Max take integers only from opset 12).
#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

bool is_number(const Value& v) { return v.kind() == T2O_KIND_INT || v.kind() == T2O_KIND_FLOAT; }

// The operands: the items of one list argument, or the two scalar arguments.
std::vector<Value> operands(Ctx& ctx) {
  if (ctx.num_inputs() == 1) {
    Value list = ctx.input(0);
    if (list.kind() != T2O_KIND_LIST) unsupported(ctx.kind() + ": argument 'self' is not a list known to the exporter");
    std::vector<Value> items = list.items();
    if (items.empty()) fail(ctx.kind() + ": arg is an empty sequence");
    return items;
  }
  return {ctx.input(0), ctx.input(1)};
}

// Lexicographic comparison of two constant int lists (the int_list overload).
void list_min_max(Ctx& ctx, bool is_max) {
  Value a = ctx.input(0), b = ctx.input(1);
  if (!a.is_const() || !b.is_const())
    unsupported(ctx.kind() + ": min/max of two int lists holding run-time values");
  std::vector<int64_t> x = a.to_ints(), y = b.to_ints();
  bool pick_b = is_max ? x < y : y < x;
  std::vector<Value> items;
  for (int64_t v : pick_b ? y : x) items.push_back(ctx.make_int(v));
  ctx.set_output(0, ctx.make_list(items));
}

void min_max(Ctx& ctx, bool is_max) {
  if (ctx.num_inputs() == 2 && ctx.input(0).kind() == T2O_KIND_LIST) return list_min_max(ctx, is_max);
  std::vector<Value> items = operands(ctx);
  bool any_float = false, all_const = true;
  for (const Value& v : items) {
    if (!is_number(v)) unsupported(ctx.kind() + ": operands must be ints or floats (one has value kind " +
                                   std::to_string((int)v.kind()) + ")");
    any_float = any_float || v.kind() == T2O_KIND_FLOAT;
    all_const = all_const && v.is_const();
  }
  if (all_const) {
    size_t best = 0;
    for (size_t i = 1; i < items.size(); ++i) {
      bool better = any_float ? (is_max ? items[i].to_float() > items[best].to_float()
                                        : items[i].to_float() < items[best].to_float())
                              : (is_max ? items[i].to_int() > items[best].to_int()
                                        : items[i].to_int() < items[best].to_int());
      if (better) best = i;
    }
    if (any_float) return ctx.set_output(0, ctx.make_float(items[best].to_float()));
    return ctx.set_output(0, ctx.make_int(items[best].to_int()));
  }
  t2o_dtype dt = T2O_DTYPE_INT64;
  if (any_float) {
    dt = T2O_DTYPE_FLOAT;
    for (const Value& v : items)
      if (v.kind() == T2O_KIND_FLOAT && !v.is_const()) dt = scalar_dtype(v);
  }
  Value best = to_dtype(ctx, items[0], dt);
  for (size_t i = 1; i < items.size(); ++i) {
    Value next = to_dtype(ctx, items[i], dt);
    Value better = ctx.op(is_max ? "Greater" : "Less", {next, best});
    best = typed(ctx, ctx.op("Where", {better, next, best}), dt, 0);
  }
  ctx.set_output(0, ctx.make_dynamic_scalar(best, any_float ? T2O_KIND_FLOAT : T2O_KIND_INT));
}

}  // namespace

T2O_SYMBOLIC("prim::min", 9) { min_max(ctx, false); }
T2O_SYMBOLIC("prim::max", 9) { min_max(ctx, true); }
