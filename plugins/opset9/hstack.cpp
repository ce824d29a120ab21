// The stacking helpers, as Reshape/Unsqueeze + Concat:
//   aten::atleast_1d(Tensor self) -> Tensor, atleast_2d, atleast_3d (+ the .Sequence overloads on
//       Tensor[] -> Tensor[])
//       0-d -> [1] / [1, 1] / [1, 1, 1]; 1-D (n) -> (1, n) / (1, n, 1); 2-D (m, n) -> (m, n, 1)
//   aten::hstack(Tensor[] tensors) -> Tensor     atleast_1d, cat along 0 for 1-D parts, else 1
//   aten::vstack(Tensor[] tensors) -> Tensor     atleast_2d, cat along 0
//   aten::dstack(Tensor[] tensors) -> Tensor     atleast_3d, cat along 2
//   aten::column_stack(Tensor[] tensors) -> Tensor   0-d/1-D parts as (n, 1) columns, cat along 1
// Parts of other dtypes are cast to the output's (PyTorch promotes across the list).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

struct Part {
  Value v;
  int64_t rank;
};

Value reshape(Ctx& ctx, const Value& x, const std::vector<int64_t>& shape) {
  return ctx.op("Reshape", {x, ctx.const_i64(shape)});
}

Part atleast(Ctx& ctx, const Value& t, int64_t n, t2o_dtype dt) {
  int64_t r = known_rank(ctx, t);
  Value x = dt == T2O_DTYPE_UNDEFINED ? ctx.as_onnx(t) : to_dtype(ctx, t, dt);
  if (r >= n) return {x, r};
  if (r == 0) return {reshape(ctx, x, std::vector<int64_t>((size_t)n, 1)), n};
  if (n == 2) return {unsqueeze(ctx, x, {0}), 2};                  // (n) -> (1, n)
  if (r == 1) return {unsqueeze(ctx, x, {0, 2}), 3};               // (n) -> (1, n, 1)
  return {unsqueeze(ctx, x, {2}), 3};                              // (m, n) -> (m, n, 1)
}

std::vector<Value> list_items(Ctx& ctx, const Value& list) {
  if (list.kind() != T2O_KIND_LIST) unsupported(ctx.kind() + ": tensors must be a list built in the graph");
  std::vector<Value> items = list.items();
  if (items.empty()) fail(ctx.kind() + ": empty tensor list");
  return items;
}

void atleast_op(Ctx& ctx, int64_t n) {
  Value in = ctx.input(0);
  if (in.kind() != T2O_KIND_LIST) return ctx.set_output(0, atleast(ctx, in, n, T2O_DTYPE_UNDEFINED).v);
  std::vector<Value> out;
  for (const Value& t : list_items(ctx, in)) out.push_back(atleast(ctx, t, n, T2O_DTYPE_UNDEFINED).v);
  ctx.set_output(0, ctx.make_list(out));
}

Value concat(Ctx& ctx, const std::vector<Value>& parts, int64_t axis) {
  if (parts.size() == 1) return parts[0];
  return ctx.op("Concat", parts, {Attr::i("axis", axis)});
}

// atleast_n on each part, then cat along `axis` (hstack: along 0 when the parts are 1-D).
void stack_op(Ctx& ctx, int64_t n, int64_t axis) {
  t2o_dtype dt = output_dtype(ctx, 0, T2O_DTYPE_UNDEFINED);
  std::vector<Value> parts;
  int64_t first_rank = -1;
  for (const Value& t : list_items(ctx, ctx.input(0))) {
    Part p = atleast(ctx, t, n, dt);
    if (first_rank < 0) first_rank = p.rank;
    parts.push_back(p.v);
  }
  if (n == 1 && first_rank == 1) axis = 0;
  ctx.set_output(0, concat(ctx, parts, axis));
}

void column_stack(Ctx& ctx) {
  t2o_dtype dt = output_dtype(ctx, 0, T2O_DTYPE_UNDEFINED);
  std::vector<Value> parts;
  for (const Value& t : list_items(ctx, ctx.input(0))) {
    known_rank(ctx, t);
    Value x = dt == T2O_DTYPE_UNDEFINED ? ctx.as_onnx(t) : to_dtype(ctx, t, dt);
    parts.push_back(t.rank() <= 1 ? reshape(ctx, x, {-1, 1}) : x);
  }
  ctx.set_output(0, concat(ctx, parts, 1));
}

}  // namespace

T2O_SYMBOLIC("aten::atleast_1d", 9) { atleast_op(ctx, 1); }
T2O_SYMBOLIC("aten::atleast_2d", 9) { atleast_op(ctx, 2); }
T2O_SYMBOLIC("aten::atleast_3d", 9) { atleast_op(ctx, 3); }
T2O_SYMBOLIC("aten::hstack", 9) { stack_op(ctx, 1, 1); }
T2O_SYMBOLIC("aten::vstack", 9) { stack_op(ctx, 2, 0); }
T2O_SYMBOLIC("aten::row_stack", 9) { stack_op(ctx, 2, 0); }
T2O_SYMBOLIC("aten::dstack", 9) { stack_op(ctx, 3, 2); }
T2O_SYMBOLIC("aten::column_stack", 9) { column_stack(ctx); }
