// aten::diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor
// The last axis (static size n) becomes the `offset` diagonal of an m x m plane, m = n + |offset|:
// a Gather along the last axis with a constant (m, m) position map (off-diagonal positions read
// entry 0 and are then zeroed by Where), then a Transpose putting the plane's rows at dim1 and
// columns at dim2 (dims of the output, rank + 1).
#include <torch2onnx/plugin.hpp>

#include <cstdlib>

#include "common/constants.hpp"
#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::diag_embed", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x, "input", 1);
  for (int i = 1; i < 4; ++i)
    if (!ctx.input(i).is_const()) unsupported("aten::diag_embed: arguments 'offset', 'dim1', 'dim2' must be constant");
  int64_t n = x.dim(r - 1);
  if (n < 0) unsupported("aten::diag_embed: the last axis must be static");
  int64_t offset = ctx.input(1).to_int();
  int64_t dim1 = normalize_axis(ctx, ctx.input(2).to_int(), r + 1, "dim1");
  int64_t dim2 = normalize_axis(ctx, ctx.input(3).to_int(), r + 1, "dim2");
  if (dim1 == dim2) fail("aten::diag_embed: dim1 and dim2 must differ");
  int64_t m = n + std::llabs(offset);
  std::vector<int64_t> pos((size_t)(m * m), 0), on((size_t)(m * m), 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < m; ++j)
      if (j - i == offset) {
        pos[(size_t)(i * m + j)] = offset >= 0 ? i : j;
        on[(size_t)(i * m + j)] = 1;
      }
  t2o_dtype dt = x.dtype();
  Value g = ctx.op("Gather", {ctx.as_onnx(x), ctx.tensor(T2O_DTYPE_INT64, {m, m}, pos.data(), pos.size() * 8)},
                   {Attr::i("axis", r - 1)});
  Value mask = ctx.op("Cast", {constant_of(ctx, T2O_DTYPE_UINT8, {m, m}, {}, on)}, {Attr::i("to", T2O_DTYPE_BOOL)});
  Value y = where_any(ctx, mask, g, ctx.scalar(dt, 0.0), dt);
  // y: (batch..., row, col) -> row at dim1, col at dim2, batch axes in order elsewhere.
  std::vector<int64_t> perm((size_t)(r + 1), -1);
  perm[dim1] = r - 1;
  perm[dim2] = r;
  int64_t b = 0;
  for (auto& p : perm)
    if (p < 0) p = b++;
  bool identity = true;
  for (int64_t i = 0; i <= r; ++i) identity = identity && perm[i] == i;
  ctx.set_output(0, identity ? y : ctx.op("Transpose", {y}, {Attr::ints("perm", perm)}));
}
