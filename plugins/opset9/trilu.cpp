// aten::triu / aten::tril(self, diagonal) below opset 14 (Trilu: opset14/trilu.cpp):
// Where(keep, x, 0) with keep[i][j] = j - i >= k (triu) or j - i <= k (tril) over the last two
// axes. Static last two dims: keep is a constant; dynamic ones: built from Range (opset 11).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void trilu_mask(Ctx& ctx, bool upper) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  if (r < 2) unsupported(ctx.kind() + ": input must have rank >= 2 (rank " + std::to_string(r) + ")");
  Value diag = opt_input(ctx, 1);
  if (diag.valid() && !diag.is_const()) unsupported(ctx.kind() + ": diagonal computed at run time needs opset >= 14");
  int64_t k = diag.valid() ? diag.to_int() : 0;
  int64_t H = x.dim((int32_t)(r - 2)), W = x.dim((int32_t)(r - 1));
  Value keep;
  if (H >= 0 && W >= 0) {
    std::vector<uint8_t> m((size_t)(H * W));
    for (int64_t i = 0; i < H; ++i)
      for (int64_t j = 0; j < W; ++j) m[(size_t)(i * W + j)] = upper ? (j - i >= k) : (j - i <= k);
    keep = ctx.tensor(T2O_DTYPE_BOOL, {H, W}, m.data(), m.size());
  } else {
    require(ctx, feature::kRange, "dynamic last two dims");
    Value zero = ctx.scalar_i64(0), one = ctx.scalar_i64(1);
    Value rows = ctx.op("Range", {zero, dim_scalar(ctx, x, r - 2), one});
    Value cols = ctx.op("Range", {zero, dim_scalar(ctx, x, r - 1), one});
    Value diff = ctx.op("Sub", {unsqueeze(ctx, cols, {0}), unsqueeze(ctx, rows, {1})});  // j - i
    Value kk = ctx.scalar_i64(k);
    keep = ctx.op("Not", {ctx.op(upper ? "Less" : "Greater", {diff, kk})});
  }
  t2o_dtype dt = x.dtype();
  ctx.set_output(0, where_any(ctx, keep, x, ctx.scalar(dt, 0.0), dt));
}

}  // namespace

T2O_SYMBOLIC("aten::triu", 9) { trilu_mask(ctx, true); }
T2O_SYMBOLIC("aten::tril", 9) { trilu_mask(ctx, false); }
