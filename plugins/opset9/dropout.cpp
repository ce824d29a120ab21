// aten::dropout, aten::feature_dropout, aten::alpha_dropout, aten::feature_alpha_dropout (+ in-place):
// identity in inference. (ONNX Dropout's `ratio` became an input at 12; emitting no node avoids it.)
// aten::dropout with train=True (train mode, or F.dropout(x, p, training=True)) zeroes each element
// with probability p and scales the rest by 1 / (1 - p): x * (U[0,1) >= p) / (1 - p), U from
// RandomUniformLike (a fresh mask each run, as PyTorch draws one). torch.onnx emits Dropout-7/10
// here, which has no training input and which runtimes run as the identity; from opset 12 Dropout
// takes training_mode and is used (opset12/dropout.cpp). The channel-wise and alpha variants in
// training mode are refused, as torch.onnx refuses them.
//
// aten::native_dropout returns the mask as well: eval (train=False) is (input, all-true mask);
// train=True or None draws the mask as dropout does, (input * mask / (1 - p), mask).
//
// dropout(Tensor input, float p, bool train) -> Tensor
// native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)
#include <torch2onnx/plugin.hpp>

#include "common/util.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// (input, p, train)
void dropout(Ctx& ctx, bool elementwise) {
  Value train = ctx.input(2);
  if (!train.is_const()) unsupported(ctx.kind() + ": argument 'train' is computed at run time");
  double p = ctx.input(1).is_const() ? ctx.input(1).to_float() : -1;
  if (!train.to_bool() || p == 0.0) return ctx.set_output(0, ctx.input(0));
  if (!elementwise) unsupported(ctx.kind() + ": train=True (export the model in eval())");
  if (p < 0) unsupported(ctx.kind() + ": argument 'p' computed at run time with train=True");
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  if (!is_float_dtype(dt)) fail(ctx.kind() + ": dropout of a non-floating tensor");
  if (p >= 1.0) return ctx.set_output(0, ctx.op("Mul", {x, ctx.scalar(dt, 0.0)}));
  Value u = ctx.op("RandomUniformLike", {x}, {Attr::i("dtype", dt)});
  Value keep = ctx.op("Cast", {ctx.op("Not", {ctx.op("Less", {u, ctx.scalar(dt, p)})})}, {Attr::i("to", dt)});
  ctx.set_output(0, ctx.op("Mul", {ctx.op("Mul", {x, keep}), ctx.scalar(dt, 1.0 / (1.0 - p))}));
}

// native_dropout(input, p, train?) -> (output, bool mask)
void native_dropout(Ctx& ctx) {
  Value x = ctx.input(0), train = ctx.input(2);
  if (!train.is_none() && !train.is_const()) unsupported("aten::native_dropout: argument 'train' is computed at run time");
  bool training = train.is_none() || train.to_bool();
  Value shape = ctx.op("Shape", {x});
  if (!training) {
    Value all_true = ctx.op("ConstantOfShape", {shape}, {Attr::tensor("value", ctx.tensor(T2O_DTYPE_BOOL, {1}, "\x01", 1))});
    ctx.set_output(0, x);
    return ctx.set_output(1, all_true);
  }
  if (!ctx.input(1).is_const()) unsupported("aten::native_dropout: argument 'p' computed at run time with train=True");
  double p = ctx.input(1).to_float();
  t2o_dtype dt = x.dtype();
  if (!is_float_dtype(dt)) fail("aten::native_dropout: dropout of a non-floating tensor");
  Value u = ctx.op("RandomUniformLike", {x}, {Attr::i("dtype", dt)});
  Value keep = ctx.op("Not", {ctx.op("Less", {u, ctx.scalar(dt, p)})});
  double scale = p >= 1.0 ? 0.0 : 1.0 / (1.0 - p);
  Value y = ctx.op("Mul", {ctx.op("Mul", {x, ctx.op("Cast", {keep}, {Attr::i("to", dt)})}), ctx.scalar(dt, scale)});
  ctx.set_output(0, y);
  ctx.set_output(1, keep);
}

}  // namespace

T2O_SYMBOLIC("aten::dropout", 9) { dropout(ctx, true); }
T2O_SYMBOLIC("aten::dropout_", 9) { dropout(ctx, true); }
T2O_SYMBOLIC("aten::feature_dropout", 9) { dropout(ctx, false); }
T2O_SYMBOLIC("aten::feature_dropout_", 9) { dropout(ctx, false); }
T2O_SYMBOLIC("aten::alpha_dropout", 9) { dropout(ctx, false); }
T2O_SYMBOLIC("aten::alpha_dropout_", 9) { dropout(ctx, false); }
T2O_SYMBOLIC("aten::feature_alpha_dropout", 9) { dropout(ctx, false); }
T2O_SYMBOLIC("aten::feature_alpha_dropout_", 9) { dropout(ctx, false); }
T2O_SYMBOLIC("aten::native_dropout", 9) { native_dropout(ctx); }
