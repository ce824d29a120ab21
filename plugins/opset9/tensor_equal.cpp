// aten::equal(Tensor self, Tensor other) -> bool (torch.equal): true when both have the same size and
// the same elements (NaN equals nothing, as ==). Sizes known at export time decide a mismatch there;
// sizes known only at run time are compared first, and the elements only when they agree (If: Equal
// would fail to broadcast otherwise). The element test counts mismatches, so two empty tensors are
// equal. Operands of different dtypes are compared in their promoted type, as PyTorch does
// (torch.equal(tensor([1]), tensor([1.])) is true).
#include <torch2onnx/plugin.hpp>

#include "common/promote.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// Whether every element of a and b (same shape) is equal: no element differs.
Value all_equal(Ctx& ctx, const Value& a, const Value& b, t2o_dtype dt) {
  Value flat_a = ctx.op("Reshape", {to_dtype(ctx, a, dt), ctx.const_i64({-1})});
  Value flat_b = ctx.op("Reshape", {to_dtype(ctx, b, dt), ctx.const_i64({-1})});
  Value differ = ctx.op("Cast", {ctx.op("Not", {equal(ctx, flat_a, flat_b, dt)})}, {Attr::i("to", T2O_DTYPE_INT64)});
  return ctx.op("Equal", {reduce(ctx, "ReduceSum", differ, {0}, false), ctx.scalar_i64(0)});
}

}  // namespace

T2O_SYMBOLIC("aten::equal", 9) {
  Value a = ctx.input(0), b = ctx.input(1);
  if (a.kind() != T2O_KIND_TENSOR || b.kind() != T2O_KIND_TENSOR) unsupported("aten::equal: operands must be tensors");
  const int64_t ra = known_rank(ctx, a, "self"), rb = known_rank(ctx, b, "other");
  if (ra != rb) return ctx.set_output(0, ctx.make_bool(false));
  bool all_static = true;
  for (int32_t i = 0; i < (int32_t)ra; ++i) {
    const int64_t da = a.dim(i), db = b.dim(i);
    if (da >= 0 && db >= 0 && da != db) return ctx.set_output(0, ctx.make_bool(false));
    all_static = all_static && da >= 0 && db >= 0;
  }
  const t2o_dtype dt = comparison_dtype(a, b);
  Value same;
  if (all_static) {
    same = all_equal(ctx, a, b, dt);
  } else {
    Value shapes_equal = all_equal(ctx, ctx.op("Shape", {ctx.as_onnx(a)}), ctx.op("Shape", {ctx.as_onnx(b)}),
                                   T2O_DTYPE_INT64);
    ctx.subgraph_begin("equal_elements");
    Value then_branch = ctx.subgraph_end({all_equal(ctx, a, b, dt)});
    ctx.subgraph_begin("equal_sizes_differ");
    const uint8_t no = 0;
    Value else_branch = ctx.subgraph_end({ctx.tensor(T2O_DTYPE_BOOL, {}, &no, 1)});
    same = ctx.op("If", {shapes_equal}, {Attr::graph("then_branch", then_branch), Attr::graph("else_branch", else_branch)});
  }
  ctx.set_output(0, ctx.make_dynamic_scalar(typed(ctx, same, T2O_DTYPE_BOOL, 0), T2O_KIND_BOOL));
}
