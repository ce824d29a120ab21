// aten::group_norm -> InstanceNormalization on the input reshaped to (N, G, -1) (each group's
// statistics are those of one instance-norm channel), reshaped back with Shape(x), then the
// per-channel affine weight/bias broadcast as (C, 1, ..., 1). As torch.onnx does.
#include <torch2onnx/plugin.hpp>

#include "common/nn_consts.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

// group_norm(input, num_groups, weight?, bias?, eps, cudnn_enabled)
T2O_SYMBOLIC("aten::group_norm", 9) {
  Value x = ctx.input(0);
  int64_t groups = ctx.input(1).to_int();
  Value w = opt_input(ctx, 2), b = opt_input(ctx, 3);
  double eps = ctx.input(4).to_float();
  int32_t r = x.rank();
  if (r < 2) unsupported("aten::group_norm: input rank " + std::to_string(r) + " (need a known rank >= 2)");
  t2o_dtype dt = x.dtype();
  Value grouped = ctx.op("Reshape", {x, ctx.const_i64({0, groups, -1})});
  Value normed = ctx.op("InstanceNormalization",
                        {grouped, filled(ctx, {groups}, 1.0, dt), filled(ctx, {groups}, 0.0, dt)},
                        {Attr::f("epsilon", eps)});
  Value y = ctx.op("Reshape", {normed, ctx.op("Shape", {x})});
  std::vector<int64_t> tail;  // axes after C, so weight (C,) broadcasts as (C, 1, ..., 1)
  for (int32_t i = 1; i < r - 1; ++i) tail.push_back(i);
  auto per_channel = [&](const Value& v) { return tail.empty() ? v : unsqueeze(ctx, v, tail); };
  if (w.valid()) y = ctx.op("Mul", {y, per_channel(w)});
  if (b.valid()) y = ctx.op("Add", {y, per_channel(b)});
  ctx.set_output(0, y);
}
