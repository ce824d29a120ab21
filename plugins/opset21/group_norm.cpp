// aten::group_norm -> GroupNormalization-21, whose scale and bias are per channel as PyTorch's
// weight and bias are (a missing weight is ones, a missing bias zeros, of C values).
// group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/group_norm.hpp"
#include "common/nn_consts.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::group_norm", 21) {
  GroupNormArgs a = group_norm_args(ctx, true);
  int64_t channels = a.x.dim(1);
  if ((!a.weight.valid() || !a.bias.valid()) && channels < 0)
    unsupported("aten::group_norm: no weight or bias and a dynamic channel dim (the defaults need C)");
  Value scale = a.weight.valid() ? to_dtype(ctx, a.weight, a.dtype) : filled(ctx, {channels}, 1.0, a.dtype);
  Value bias = a.bias.valid() ? to_dtype(ctx, a.bias, a.dtype) : filled(ctx, {channels}, 0.0, a.dtype);
  ctx.set_output(0, ctx.op("GroupNormalization", {a.x, scale, bias},
                           {Attr::f("epsilon", a.eps), Attr::i("num_groups", a.groups)}));
}
