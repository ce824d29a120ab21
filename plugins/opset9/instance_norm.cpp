// aten::instance_norm: with input statistics (track_running_stats=False, or training) ->
// InstanceNormalization; with running statistics (track_running_stats=True in eval) it is a
// batch norm -> BatchNormalization. Missing weight/bias become ones/zeros of C.
#include <torch2onnx/plugin.hpp>

#include "common/nn_consts.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

// instance_norm(input, weight?, bias?, running_mean?, running_var?, use_input_stats, momentum, eps,
//               cudnn_enabled)
T2O_SYMBOLIC("aten::instance_norm", 9) {
  Value x = ctx.input(0);
  Value w = opt_input(ctx, 1), b = opt_input(ctx, 2);
  Value mean = opt_input(ctx, 3), var = opt_input(ctx, 4);
  Value use_stats = ctx.input(5);
  double eps = ctx.input(7).to_float();
  if (!use_stats.is_const()) unsupported("aten::instance_norm: argument 'use_input_stats' is computed at run time");
  int32_t r = x.rank();
  if (r >= 0 && r < 3) fail("aten::instance_norm: input must have rank >= 3, got " + std::to_string(r));
  t2o_dtype dt = x.dtype();
  if (!w.valid() || !b.valid()) {
    int64_t c = x.dim(1);
    if (c < 0) unsupported("aten::instance_norm: weight/bias None with a dynamic channel count");
    if (!w.valid()) w = filled(ctx, {c}, 1.0, dt);
    if (!b.valid()) b = filled(ctx, {c}, 0.0, dt);
  }
  if (use_stats.to_bool()) {
    ctx.set_output(0, ctx.op("InstanceNormalization", {x, w, b}, {Attr::f("epsilon", eps)}));
    return;
  }
  if (!mean.valid() || !var.valid())
    fail("aten::instance_norm: use_input_stats=False without running_mean/running_var");
  ctx.set_output(0, ctx.op("BatchNormalization", {x, w, b, mean, var}, {Attr::f("epsilon", eps)}));
}
