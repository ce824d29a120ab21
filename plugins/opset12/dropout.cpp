// aten::dropout (+ in-place) with train=True from opset 12, as torch.onnx: Dropout-12 takes the
// ratio and a training_mode input, and with training_mode true zeroes each element with probability
// p and scales the rest by 1 / (1 - p), a fresh mask each run, as PyTorch draws one. (Below 12
// Dropout has no training input and runtimes run it as the identity: opset9/dropout.cpp draws the
// mask with RandomUniformLike instead.) ONNX wants a ratio below 1: p = 1, PyTorch's all zeros, is
// x * 0. train=False is the identity, as at opset 9.
//
// dropout(Tensor input, float p, bool train) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/util.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void dropout(Ctx& ctx) {
  Value x = ctx.input(0), train = ctx.input(2);
  if (!train.is_const()) unsupported(ctx.kind() + ": argument 'train' is computed at run time");
  if (!train.to_bool()) return ctx.set_output(0, x);
  if (!ctx.input(1).is_const()) unsupported(ctx.kind() + ": argument 'p' computed at run time with train=True");
  const double p = ctx.input(1).to_float();
  const t2o_dtype dt = x.dtype();
  if (!is_float_dtype(dt)) fail(ctx.kind() + ": dropout of a non-floating tensor");
  if (p >= 1.0) return ctx.set_output(0, ctx.op("Mul", {x, ctx.scalar(dt, 0.0)}));
  // ratio: a 0-d float32 (torch.onnx's torch.tensor(p)); training_mode: a 0-d bool true.
  Value ratio = ctx.scalar(T2O_DTYPE_FLOAT, p), training_mode = ctx.scalar(T2O_DTYPE_BOOL, 1);
  ctx.set_output(0, ctx.op_n("Dropout", {x, ratio, training_mode}, 2)[0]);
}

}  // namespace

T2O_SYMBOLIC("aten::dropout", 12) { dropout(ctx); }
T2O_SYMBOLIC("aten::dropout_", 12) { dropout(ctx); }
