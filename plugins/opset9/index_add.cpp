// aten::index_add(self, dim, index, source, *, alpha=1) (+ index_add_) before opset 16, where
// ScatterElements cannot accumulate: source's slices along dim are summed into self's positions
// `index` as a product with a one-hot matrix,
//   y = self + transpose(transpose(alpha * source, dim last) @ OneHot(index, self.size(dim))),
// which sums repeated indices exactly (torch.onnx 1.13 scatters there and keeps only one of them).
// opset16/index_add.cpp uses ScatterElements(reduction='add').
//
// index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void index_add(Ctx& ctx) {
  const std::string k = ctx.kind();
  Value x = ctx.input(0), index = ctx.input(2), source = ctx.input(3);
  int64_t r = known_rank(ctx, x);
  known_rank(ctx, source);
  if (!ctx.input(1).is_const()) unsupported(k + ": argument 'dim' must be constant");
  if (index.rank() > 1) fail(k + ": index must be 0-d or 1-D");
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  t2o_dtype dt = x.dtype();
  if (dt == T2O_DTYPE_BOOL) unsupported(k + ": bool self (sums of bools)");
  // MatMul's types: floats as they are, integers summed exactly in int64.
  t2o_dtype work = is_float_dtype(dt) ? dt : T2O_DTYPE_INT64;
  Value src = to_dtype(ctx, source, work);
  if (ctx.num_inputs() > 4) {
    Value alpha = ctx.input(4);
    if (!alpha.is_const()) unsupported(k + ": argument 'alpha' must be constant");
    if (alpha.to_float() != 1.0) src = ctx.op("Mul", {src, to_dtype(ctx, alpha, work)});
  }
  Value y;
  if (r == 0) {  // a 0-d self holds one element: every source value lands there
    y = ctx.op("Add", {to_dtype(ctx, x, work), reduce(ctx, "ReduceSum", src, {}, false)});
  } else {
    if (source.rank() == 0) src = unsqueeze(ctx, src, {0});
    // [K, N]: row k is 1 at index[k]. OneHot's depth is a 1-element tensor.
    Value i = nonneg_index(ctx, index, x, axis);
    if (index.rank() == 0) i = unsqueeze(ctx, i, {0});
    Value depth = dims_of(ctx, x, {axis});
    // (int64 values: the OneHot kernels ONNX Runtime has; then cast)
    Value one_hot = ctx.op("OneHot", {i, depth, ctx.const_i64({0, 1})}, {Attr::i("axis", -1)});
    if (work != T2O_DTYPE_INT64) one_hot = ctx.op("Cast", {one_hot}, {Attr::i("to", work)});
    // source with dim last: [..., K] @ [K, N] -> [..., N], then dim back in place.
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < r; ++d)
      if (d != axis) perm.push_back(d);
    perm.push_back(axis);
    std::vector<int64_t> back((size_t)r);
    for (int64_t d = 0; d < r; ++d) back[(size_t)perm[(size_t)d]] = d;
    Value moved = axis == r - 1 ? src : ctx.op("Transpose", {src}, {Attr::ints("perm", perm)});
    Value sums = ctx.op("MatMul", {moved, one_hot});
    if (axis != r - 1) sums = ctx.op("Transpose", {sums}, {Attr::ints("perm", back)});
    y = ctx.op("Add", {to_dtype(ctx, x, work), sums});
  }
  ctx.set_output(0, work == dt ? y : ctx.op("Cast", {y}, {Attr::i("to", dt)}));
}

}  // namespace

T2O_SYMBOLIC("aten::index_add", 9) { index_add(ctx); }
T2O_SYMBOLIC("aten::index_add_", 9) { index_add(ctx); }
