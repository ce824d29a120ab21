// aten::unfold(self, dimension, size, step) (Tensor.unfold): the windows x[i*step : i*step+size]
// along dim (static length L there): one Gather of the constant index table [n, size] gives
// [.., n, size, ..]; the size axis then moves last, as PyTorch puts it.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::unfold", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x, "input", 1);
  for (int32_t i = 1; i <= 3; ++i)
    if (!ctx.input(i).is_const()) unsupported("aten::unfold: dimension, size and step must be constant");
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  int64_t size = ctx.input(2).to_int(), step = ctx.input(3).to_int();
  int64_t len = x.dim((int32_t)axis);
  if (len < 0) unsupported("aten::unfold: dim " + std::to_string(axis) + " must have a static size");
  if (size < 0 || step <= 0 || size > len)
    fail("aten::unfold: size=" + std::to_string(size) + ", step=" + std::to_string(step) + " for length " + std::to_string(len));
  int64_t n = (len - size) / step + 1;
  std::vector<int64_t> table;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < size; ++j) table.push_back(i * step + j);
  Value idx = ctx.tensor(T2O_DTYPE_INT64, {n, size}, table.data(), table.size() * sizeof(int64_t));
  Value g = ctx.op("Gather", {x, idx}, {Attr::i("axis", axis)});  // rank r + 1
  if (axis == r - 1) return ctx.set_output(0, g);
  std::vector<int64_t> perm;
  for (int64_t i = 0; i <= r; ++i)
    if (i != axis + 1) perm.push_back(i);
  perm.push_back(axis + 1);
  ctx.set_output(0, ctx.op("Transpose", {g}, {Attr::ints("perm", perm)}));
}
