// aten::batch_norm -> BatchNormalization with the running statistics (inference). In training
// (training=True: train mode, or a module without running statistics) the batch's mean and biased
// variance over every axis but 1 are computed with ReduceMean:
// y = (x - mean) / sqrt(var + eps) * weight + bias.
// Not ONNX's BatchNormalization in training mode (torch.onnx's form: five outputs up to opset 13,
// training_mode=1 from 14): ONNX Runtime 1.30 computes that form wrongly when the running statistics
// are still at their initial values (mean 0, var 1: a fresh model; differences of 0.5 and more),
// and the updated running statistics it adds are outputs nothing reads (an ONNX model keeps no state),
// so the explicit form is what every runtime computes with the batch's statistics.
// Only the `epsilon` attribute is emitted: `spatial` (removed at 9) and `consumed_inputs` are never
// emitted, `momentum` only matters in training; opset 14 adds training_mode (default 0 = inference)
// and opset 15 allows different dtypes for scale/bias/mean/var, so this form stays valid to 17+.
// PyTorch 2.x's aten-IR forms, reached by code that calls torch.ops.aten.<op>:
// _native_batch_norm_legit_no_training, _native_batch_norm_legit (with running statistics, or
// .no_stats with training=True) and _batch_norm_no_update, the same computation; their extra outputs
// are the batch's mean and 1/sqrt(var + eps) per channel in training, else empty tensors (shape [0]),
// as PyTorch returns them.
#include <torch2onnx/plugin.hpp>

#include "common/constants.hpp"
#include "common/forms.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// A 1-D constant of C copies of v with x's dtype (for a missing weight or bias).
Value filled(Ctx& ctx, int64_t c, float v, t2o_dtype dtype) {
  Value t = ctx.const_f32(std::vector<float>((size_t)c, v));
  return cast_to(ctx, t, dtype);
}

// BatchNormalization takes weight and bias: ones and zeros for the ones the model leaves None.
void fill_affine(Ctx& ctx, const Value& x, const Value& mean, Value& weight, Value& bias) {
  if (weight.valid() && bias.valid()) return;
  int64_t c = x.dim(1);
  if (c < 0 && mean.rank() == 1) c = mean.dim(0);
  if (c < 0) unsupported(ctx.kind() + ": weight/bias None with a dynamic channel count");
  if (!weight.valid()) weight = filled(ctx, c, 1.0f, x.dtype());
  if (!bias.valid()) bias = filled(ctx, c, 0.0f, x.dtype());
}

// y from x with the running statistics (training false) or the batch's; `stats`, when given,
// receives the batch's mean and 1/sqrt(var + eps), both [C] (training only).
Value batch_norm(Ctx& ctx, const Value& x, Value weight, Value bias, const Value& mean, const Value& var, bool training,
                 double eps, std::vector<Value>* stats = nullptr) {
  const std::string op = ctx.kind();
  if (x.rank() >= 0 && x.rank() < 2) fail(op + ": input must have rank >= 2, got " + std::to_string(x.rank()));
  t2o_dtype dt = x.dtype();
  if (training) {
    known_rank(ctx, x, "training=True with an input");
    std::vector<int64_t> axes{0}, channel_shape{-1};  // statistics per channel; weight/bias as [C, 1, ...]
    for (int64_t a = 2; a < x.rank(); ++a) axes.push_back(a), channel_shape.push_back(1);
    Value batch_mean = reduce(ctx, "ReduceMean", x, axes, true);
    Value centered = ctx.op("Sub", {x, batch_mean});
    Value batch_var = reduce(ctx, "ReduceMean", ctx.op("Mul", {centered, centered}), axes, true);
    Value std_dev = ctx.op("Sqrt", {ctx.op("Add", {batch_var, ctx.scalar(dt, eps)})});
    Value y = ctx.op("Div", {centered, std_dev});
    if (weight.valid()) y = ctx.op("Mul", {y, ctx.op("Reshape", {to_dtype(ctx, weight, dt), ctx.const_i64(channel_shape)})});
    if (bias.valid()) y = ctx.op("Add", {y, ctx.op("Reshape", {to_dtype(ctx, bias, dt), ctx.const_i64(channel_shape)})});
    if (stats) {
      stats->push_back(ctx.op("Reshape", {batch_mean, ctx.const_i64({-1})}));
      stats->push_back(ctx.op("Reshape", {ctx.op("Reciprocal", {std_dev}), ctx.const_i64({-1})}));
    }
    return y;
  }
  if (!mean.valid() || !var.valid()) fail(op + ": running_mean/running_var are None with training=False");
  fill_affine(ctx, x, mean, weight, bias);
  return ctx.op("BatchNormalization", {x, weight, bias, mean, var}, {Attr::f("epsilon", eps)});
}

bool const_training(Ctx& ctx, int32_t i) {
  Value training = ctx.input(i);
  if (!training.is_const()) unsupported(ctx.kind() + ": argument 'training' is computed at run time");
  return training.to_bool();
}

// Outputs 1.. of the aten-IR forms: the batch statistics in training, else empty tensors as PyTorch's.
void set_stats(Ctx& ctx, const std::vector<Value>& stats) {
  for (int32_t i = 1; i < ctx.num_outputs(); ++i) {
    const t2o_dtype dt = output_dtype(ctx, i, ctx.input(0).dtype());
    ctx.set_output(i, (size_t)i <= stats.size() ? stats[(size_t)i - 1] : constant_of(ctx, dt, {0}, {}, {}));
  }
}

}  // namespace

// batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)
T2O_SYMBOLIC("aten::batch_norm", 9) {
  Value x = ctx.input(0), weight = opt_input(ctx, 1), bias = opt_input(ctx, 2), mean = opt_input(ctx, 3),
        var = opt_input(ctx, 4);
  const bool training = const_training(ctx, 5);
  const double eps = ctx.input(7).to_float();
  ctx.set_output(0, batch_norm(ctx, x, weight, bias, mean, var, training, eps));
}

// _native_batch_norm_legit_no_training(input, weight?, bias?, running_mean, running_var, momentum, eps)
//   -> (out, save_mean [0], save_rstd [0])
T2O_SYMBOLIC("aten::_native_batch_norm_legit_no_training", 9) {
  ctx.set_output(0, batch_norm(ctx, ctx.input(0), opt_input(ctx, 1), opt_input(ctx, 2), ctx.input(3), ctx.input(4),
                               false, ctx.input(6).to_float()));
  set_stats(ctx, {});
}

// _native_batch_norm_legit(input, weight?, bias?, running_mean, running_var, bool training, momentum, eps)
// _native_batch_norm_legit.no_stats(input, weight?, bias?, bool training, momentum, eps)
//   -> (out, save_mean, save_invstd)
T2O_SYMBOLIC("aten::_native_batch_norm_legit", 9) {
  const bool no_stats = ctx.num_inputs() == 6;
  const bool training = const_training(ctx, no_stats ? 3 : 5);
  if (no_stats && !training)
    fail("aten::_native_batch_norm_legit: no running statistics and training=False (PyTorch has nothing to normalize with)");
  std::vector<Value> stats;
  Value mean = no_stats ? Value() : ctx.input(3), var = no_stats ? Value() : ctx.input(4);
  ctx.set_output(0, batch_norm(ctx, ctx.input(0), opt_input(ctx, 1), opt_input(ctx, 2), mean, var, training,
                               ctx.input(no_stats ? 5 : 7).to_float(), &stats));
  set_stats(ctx, stats);
}

// _batch_norm_no_update(input, weight?, bias?, running_mean?, running_var?, momentum, eps)
//   -> (out, save_mean [0], save_rstd [0], reserve [0] uint8): normalizes with the running statistics.
T2O_SYMBOLIC("aten::_batch_norm_no_update", 9) {
  Value mean = opt_input(ctx, 3), var = opt_input(ctx, 4);
  if (!mean.valid() || !var.valid())
    unsupported("aten::_batch_norm_no_update: without running statistics (normalizing with the batch's)");
  ctx.set_output(0, batch_norm(ctx, ctx.input(0), opt_input(ctx, 1), opt_input(ctx, 2), mean, var, false,
                               ctx.input(6).to_float()));
  set_stats(ctx, {});
}
