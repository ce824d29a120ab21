// aten::group_norm -> InstanceNormalization on the input reshaped to (N, G, -1) (each group's
// statistics are those of one instance-norm channel), reshaped back with Shape(x), then the
// per-channel affine weight/bias broadcast as (C, 1, ..., 1). As torch.onnx does.
#include <torch2onnx/plugin.hpp>

#include "common/group_norm.hpp"
#include "common/nn_consts.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

// group_norm(input, num_groups, weight?, bias?, eps, cudnn_enabled)
T2O_SYMBOLIC("aten::group_norm", 9) {
  GroupNormArgs a = group_norm_args(ctx, false);
  Value grouped = ctx.op("Reshape", {a.x, ctx.const_i64({0, a.groups, -1})});
  Value normed = ctx.op("InstanceNormalization",
                        {grouped, filled(ctx, {a.groups}, 1.0, a.dtype), filled(ctx, {a.groups}, 0.0, a.dtype)},
                        {Attr::f("epsilon", a.eps)});
  Value y = ctx.op("Reshape", {normed, ctx.op("Shape", {a.x})});
  ctx.set_output(0, group_norm_affine(ctx, y, a));
}
