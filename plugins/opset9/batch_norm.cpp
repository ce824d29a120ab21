// aten::batch_norm -> BatchNormalization with the running statistics (inference); with
// training=True (train mode, or track_running_stats=False, whose modules always normalize with the
// batch's statistics) the batch's mean and biased variance over every axis but 1 are computed with
// ReduceMean: y = (x - mean) / sqrt(var + eps) * weight + bias. Updating the running statistics is
// a side effect the exported graph does not have (as torch.onnx, which also drops it).
// Only the `epsilon` attribute is emitted: `spatial` (removed at 9) and `consumed_inputs` are never
// emitted, `momentum` only matters in training; opset 14 adds training_mode (default 0 = inference)
// and opset 15 allows different dtypes for scale/bias/mean/var, so this form stays valid to 17+.
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// A 1-D constant of C copies of v with x's dtype (for a missing weight or bias).
Value filled(Ctx& ctx, int64_t c, float v, t2o_dtype dtype) {
  Value t = ctx.const_f32(std::vector<float>((size_t)c, v));
  return cast_to(ctx, t, dtype);
}

}  // namespace

// batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)
T2O_SYMBOLIC("aten::batch_norm", 9) {
  Value x = ctx.input(0);
  Value weight = opt_input(ctx, 1), bias = opt_input(ctx, 2);
  Value mean = opt_input(ctx, 3), var = opt_input(ctx, 4);
  Value training = ctx.input(5);
  double eps = ctx.input(7).to_float();
  if (!training.is_const()) unsupported("aten::batch_norm: argument 'training' is computed at run time");
  if (x.rank() >= 0 && x.rank() < 2)
    fail("aten::batch_norm: input must have rank >= 2, got " + std::to_string(x.rank()));
  t2o_dtype dt = x.dtype();
  if (training.to_bool()) {
    known_rank(ctx, x, "training=True with an input");
    std::vector<int64_t> axes{0}, channel_shape{-1};  // statistics per channel; weight/bias as [C, 1, ...]
    for (int64_t a = 2; a < x.rank(); ++a) axes.push_back(a), channel_shape.push_back(1);
    Value batch_mean = reduce(ctx, "ReduceMean", x, axes, true);
    Value centered = ctx.op("Sub", {x, batch_mean});
    Value batch_var = reduce(ctx, "ReduceMean", ctx.op("Mul", {centered, centered}), axes, true);
    Value y = ctx.op("Div", {centered, ctx.op("Sqrt", {ctx.op("Add", {batch_var, ctx.scalar(dt, eps)})})});
    if (weight.valid()) y = ctx.op("Mul", {y, ctx.op("Reshape", {to_dtype(ctx, weight, dt), ctx.const_i64(channel_shape)})});
    if (bias.valid()) y = ctx.op("Add", {y, ctx.op("Reshape", {to_dtype(ctx, bias, dt), ctx.const_i64(channel_shape)})});
    return ctx.set_output(0, y);
  }
  if (!mean.valid() || !var.valid())
    fail("aten::batch_norm: running_mean/running_var are None with training=False");
  if (!weight.valid() || !bias.valid()) {
    int64_t c = x.dim(1);
    if (c < 0 && mean.rank() == 1) c = mean.dim(0);
    if (c < 0) unsupported("aten::batch_norm: weight/bias None with a dynamic channel count");
    if (!weight.valid()) weight = filled(ctx, c, 1.0f, dt);
    if (!bias.valid()) bias = filled(ctx, c, 0.0f, dt);
  }
  ctx.set_output(0, ctx.op("BatchNormalization", {x, weight, bias, mean, var}, {Attr::f("epsilon", eps)}));
}
