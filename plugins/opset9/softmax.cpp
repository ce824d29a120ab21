// aten::softmax / aten::log_softmax(self, dim, dtype) -> Softmax / LogSoftmax.
// aten::_log_softmax(self, dim, bool half_to_float): the same LogSoftmax (half_to_float gives a
// float output, which the cast to the output's dtype already does). Before opset 13 the
// ONNX ops flatten at `axis`, so a non-last dim is transposed to the end and back (common/forms.hpp).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void softmax_op(Ctx& ctx, const char* op_type) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  Value in = cast_to(ctx, ctx.as_onnx(x), output_dtype(ctx, 0, x.dtype()));  // the dtype argument
  if (r == 0) {  // softmax of a scalar is 1 (log: 0)
    Value one = ctx.op(op_type, {unsqueeze(ctx, in, {0})}, {Attr::i("axis", 0)});
    return ctx.set_output(0, squeeze(ctx, one, {0}));
  }
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  ctx.set_output(0, softmax(ctx, op_type, in, axis, r));
}

}  // namespace

T2O_SYMBOLIC("aten::softmax", 9) { softmax_op(ctx, "Softmax"); }
T2O_SYMBOLIC("aten::log_softmax", 9) { softmax_op(ctx, "LogSoftmax"); }
T2O_SYMBOLIC("aten::_log_softmax", 9) { softmax_op(ctx, "LogSoftmax"); }
