// aten::diagonal(self, offset=0, dim1=0, dim2=1): dim1 and dim2 move last and are flattened; the
// diagonal's flat positions are gathered into a new last axis, as PyTorch appends it. With static
// sizes of dim1/dim2 the positions are a constant; with dynamic ones they are computed at run time:
// length L = clamp(min(rows, cols - offset) or min(rows + offset, cols), 0), positions
// (i + max(0, -offset)) * cols + i + max(0, offset) for i < L (i from NonZero of L ones: no Range
// before opset 11). aten::diag(self, diagonal=0): the diagonal of a 2-D input, or the square
// matrix with a 1-D input on its main diagonal (other diagonals refused).
#include <torch2onnx/plugin.hpp>

#include <algorithm>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

Value diagonal(Ctx& ctx, const Value& x, int64_t offset, int64_t d1, int64_t d2) {
  int64_t r = x.rank();
  if (d1 == d2) fail(ctx.kind() + ": dim1 and dim2 are both " + std::to_string(d1));
  int64_t rows = x.dim((int32_t)d1), cols = x.dim((int32_t)d2);
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < r; ++i)
    if (i != d1 && i != d2) perm.push_back(i);
  perm.push_back(d1);
  perm.push_back(d2);
  Value t = ctx.op("Transpose", {x}, {Attr::ints("perm", perm)});
  std::vector<int64_t> flat_shape((size_t)(r - 2), 0);
  flat_shape.push_back(rows >= 0 && cols >= 0 ? rows * cols : -1);
  Value flat = ctx.op("Reshape", {t, ctx.const_i64(flat_shape)});
  if (rows < 0 || cols < 0) {
    Value nr = dim_scalar(ctx, x, d1), nc = dim_scalar(ctx, x, d2), off = ctx.scalar_i64(offset);
    // (Min/Max take int64 only from opset 12: Where of Less)
    auto smaller = [&](const Value& a, const Value& b) { return ctx.op("Where", {ctx.op("Less", {a, b}), a, b}); };
    Value len = offset >= 0 ? smaller(nr, ctx.op("Sub", {nc, off})) : smaller(ctx.op("Add", {nr, off}), nc);
    Value zero = ctx.scalar_i64(0);
    len = ctx.op("Where", {ctx.op("Less", {len, zero}), zero, len});
    Value ones = ctx.op("ConstantOfShape", {unsqueeze(ctx, len, {0})}, {Attr::tensor("value", ctx.const_i64({1}))});
    Value i = ctx.op("Reshape", {ctx.op("NonZero", {ones}), ctx.const_i64({-1})});
    Value row = ctx.op("Add", {i, ctx.scalar_i64(std::max<int64_t>(0, -offset))});
    Value pos = ctx.op("Add", {ctx.op("Mul", {row, nc}), ctx.op("Add", {i, ctx.scalar_i64(std::max<int64_t>(0, offset))})});
    return ctx.op("Gather", {flat, pos}, {Attr::i("axis", r - 2)});
  }
  std::vector<int64_t> pos;
  for (int64_t i = std::max<int64_t>(0, -offset); i < rows && i + offset < cols; ++i) pos.push_back(i * cols + i + offset);
  if (pos.empty()) unsupported(ctx.kind() + ": an empty diagonal (offset " + std::to_string(offset) + ")");
  return ctx.op("Gather", {flat, ctx.const_i64(pos)}, {Attr::i("axis", r - 2)});
}

}  // namespace

T2O_SYMBOLIC("aten::diagonal", 9) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  if (r < 2) unsupported("aten::diagonal: needs an input of rank >= 2");
  for (int32_t i = 1; i <= 3; ++i)
    if (!ctx.input(i).is_const()) unsupported("aten::diagonal: offset, dim1 and dim2 must be constant");
  ctx.set_output(0, diagonal(ctx, x, ctx.input(1).to_int(), normalize_axis(ctx, ctx.input(2).to_int(), r),
                             normalize_axis(ctx, ctx.input(3).to_int(), r)));
}

T2O_SYMBOLIC("aten::diag", 9) {
  Value x = ctx.input(0);
  if (!ctx.input(1).is_const()) unsupported("aten::diag: argument 'diagonal' must be constant");
  int64_t k = ctx.input(1).to_int();
  if (x.rank() == 2) return ctx.set_output(0, diagonal(ctx, x, k, 0, 1));
  if (x.rank() != 1) fail("aten::diag: expects a 1-D or 2-D input");
  int64_t n = x.dim(0);
  if (n < 0) unsupported("aten::diag: a 1-D input of dynamic length");
  if (k != 0) unsupported("aten::diag: building a matrix on diagonal " + std::to_string(k));
  std::vector<uint8_t> eye((size_t)(n * n), 0);
  for (int64_t i = 0; i < n; ++i) eye[(size_t)(i * n + i)] = 1;
  Value mask = ctx.tensor(T2O_DTYPE_BOOL, {n, n}, eye.data(), eye.size());
  Value row = unsqueeze(ctx, x, {0});  // [1, n]: column i holds x[i]
  t2o_dtype dt = x.dtype();
  // (Where, not a product with the identity: 0 * inf would be NaN off the diagonal.)
  ctx.set_output(0, where_any(ctx, mask, row, ctx.scalar(dt == T2O_DTYPE_BOOL ? T2O_DTYPE_BOOL : dt, 0.0), dt));
}
