// aten::diff(self, n=1, dim=-1, prepend=None, append=None): prepend and append are concatenated
// along dim, then n times x[1:] - x[:-1] along dim (logical xor for bool, as PyTorch).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::diff", 9) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  if (r < 1) unsupported("aten::diff: needs an input of rank >= 1");
  if (!ctx.input(1).is_const() || !ctx.input(2).is_const())
    unsupported("aten::diff: arguments 'n' and 'dim' must be constant");
  int64_t n = ctx.input(1).to_int();
  int64_t axis = normalize_axis(ctx, ctx.input(2).to_int(), r);
  if (n < 0) fail("aten::diff: n=" + std::to_string(n) + " must be non-negative");
  t2o_dtype dt = x.dtype();
  std::vector<Value> parts;
  Value prepend = opt_input(ctx, 3), append = opt_input(ctx, 4);
  if (prepend.valid()) parts.push_back(to_dtype(ctx, prepend, dt));
  parts.push_back(ctx.as_onnx(x));
  if (append.valid()) parts.push_back(to_dtype(ctx, append, dt));
  Value y = parts.size() == 1 ? parts[0] : ctx.op("Concat", parts, {Attr::i("axis", axis)});
  for (int64_t i = 0; i < n; ++i) {
    Value hi = slice(ctx, y, {axis}, {1}, {kInt64Max});
    Value lo = slice(ctx, y, {axis}, {0}, {-1});
    y = ctx.op(dt == T2O_DTYPE_BOOL ? "Xor" : "Sub", {hi, lo});
  }
  ctx.set_output(0, y);
}
