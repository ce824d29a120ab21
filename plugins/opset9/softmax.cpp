// aten::softmax / aten::log_softmax(self, dim, dtype) -> Softmax / LogSoftmax.
// aten::_softmax / aten::_log_softmax(Tensor self, int dim, bool half_to_float) (core ATen IR, as
// torch.export's run_decompositions() leaves them): the same ops; half_to_float on a float16 input
// gives a float32 result, computed as torch.onnx does by casting the input to float first (the cast
// to the output's dtype recorded by the example run; FLOAT when that run did not record it).
// Before opset 13 the ONNX ops flatten at `axis`, so a non-last dim is transposed to the end and
// back (common/forms.hpp).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void softmax_op(Ctx& ctx, const char* op_type, bool private_form = false) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  t2o_dtype fallback = x.dtype();
  if (private_form) {  // (self, dim, bool half_to_float)
    Value h = ctx.input(2);
    if (!h.is_const()) unsupported(ctx.kind() + ": argument 'half_to_float' computed at run time");
    if (h.to_bool() && x.dtype() == T2O_DTYPE_FLOAT16) fallback = T2O_DTYPE_FLOAT;
  }
  if (!ctx.input(1).is_const()) unsupported(ctx.kind() + ": argument 'dim' computed at run time");
  Value in = cast_to(ctx, ctx.as_onnx(x), output_dtype(ctx, 0, fallback));  // the dtype argument
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
T2O_SYMBOLIC("aten::_softmax", 9) { softmax_op(ctx, "Softmax", true); }
T2O_SYMBOLIC("aten::_log_softmax", 9) { softmax_op(ctx, "LogSoftmax", true); }
