// aten::gather(self, dim, index, sparse_grad) at opsets 9-10 (GatherElements is opset 11, see
// opset11/gather.cpp): x is flattened and gathered at a flat index = index * stride(dim) plus a
// constant holding every other axis's position * stride. Exact for every dtype (unlike the
// one-hot/ReduceSum trick, which turns inf into NaN), but needs static shapes of the index and of
// x's trailing dims.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::gather", 9) {
  Value x = ctx.input(0), index = ctx.input(2);
  int64_t r = known_rank(ctx, x);
  if (r == 0) return ctx.set_output(0, x);
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  if (!index.has_static_shape()) unsupported("aten::gather: index of dynamic shape needs opset >= 11");
  std::vector<int64_t> S = x.dims(), K = index.dims();
  std::vector<int64_t> stride((size_t)r, 1);
  for (int64_t d = r - 2; d >= 0; --d) {
    if (S[(size_t)d + 1] < 0) unsupported("aten::gather: input with dynamic dim " + std::to_string(d + 1) + " needs opset >= 11");
    stride[(size_t)d] = stride[(size_t)d + 1] * S[(size_t)d + 1];
  }
  int64_t n = 1;
  for (auto k : K) n *= k;
  std::vector<int64_t> base((size_t)n, 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rem = flat, off = 0;
    for (int64_t d = r - 1; d >= 0; --d) {
      int64_t pos = rem % K[(size_t)d];
      rem /= K[(size_t)d];
      if (d != axis) off += pos * stride[(size_t)d];
    }
    base[(size_t)flat] = off;
  }
  Value b = ctx.tensor(T2O_DTYPE_INT64, K, base.data(), base.size() * sizeof(int64_t));
  Value i = ctx.op("Add", {b, ctx.op("Mul", {as_i64(ctx, index), ctx.scalar_i64(stride[(size_t)axis])})});
  Value flat_x = ctx.op("Reshape", {x, ctx.const_i64({-1})});
  ctx.set_output(0, ctx.op("Gather", {flat_x, i}, {Attr::i("axis", 0)}));
}
