// aten::one_hot(self, num_classes=-1) -> OneHot (int64 result, classes on a new last axis).
// num_classes=-1 means max(self) + 1, computed at run time (OneHot's depth is an input).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::one_hot", 9) {
  Value x = ctx.input(0);
  Value n = ctx.input(1);
  Value idx = cast_to(ctx, ctx.as_onnx(x), T2O_DTYPE_INT64);
  Value depth;
  if (n.is_const() && n.to_int() >= 0) {
    depth = ctx.const_i64({n.to_int()});
  } else if (n.is_const()) {
    Value top = x.rank() == 0 ? idx : reduce(ctx, "ReduceMax", idx, {}, false);
    depth = unsqueeze(ctx, ctx.op("Add", {top, ctx.scalar_i64(1)}), {0});
  } else {
    depth = unsqueeze(ctx, cast_to(ctx, ctx.as_onnx(n), T2O_DTYPE_INT64), {0});
  }
  ctx.set_output(0, ctx.op("OneHot", {idx, depth, ctx.const_i64({0, 1})}, {Attr::i("axis", -1)}));
}
