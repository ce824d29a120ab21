// aten::triu / aten::tril(self, diagonal) -> Trilu (opset 14); the diagonal is a 0-d int64 input.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void trilu(Ctx& ctx, bool upper) {
  Value x = ctx.input(0);
  if (x.rank() >= 0 && x.rank() < 2)
    unsupported(ctx.kind() + ": input must have rank >= 2 (rank " + std::to_string(x.rank()) + ")");
  Value diag = opt_input(ctx, 1);
  std::vector<Value> in{x};
  if (diag.valid() && !(diag.is_const() && diag.to_int() == 0)) {
    Value k = as_i64(ctx, diag);
    if (diag.kind() == T2O_KIND_TENSOR && diag.rank() != 0) k = ctx.op("Reshape", {k, ctx.const_i64({})});
    in.push_back(k);
  }
  ctx.set_output(0, ctx.op("Trilu", in, {Attr::i("upper", upper ? 1 : 0)}));
}

}  // namespace

T2O_SYMBOLIC("aten::triu", 14) { trilu(ctx, true); }
T2O_SYMBOLIC("aten::tril", 14) { trilu(ctx, false); }
