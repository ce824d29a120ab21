// aten::group_norm -> GroupNormalization-21, whose scale and bias are per channel as PyTorch's
// weight and bias are (a missing weight is ones, a missing bias zeros, of C values).
// group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/nn_consts.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::group_norm", 21) {
  Value x = ctx.input(0);
  int64_t groups = ctx.input(1).to_int();
  Value w = opt_input(ctx, 2), b = opt_input(ctx, 3);
  double eps = ctx.input(4).to_float();
  int32_t r = x.rank();
  if (r < 2) unsupported("aten::group_norm: input rank " + std::to_string(r) + " (need a known rank >= 2)");
  t2o_dtype dt = x.dtype();
  if (!is_float_dtype(dt)) unsupported("aten::group_norm: element type " + std::to_string((int)dt) + " (float types only)");
  int64_t channels = x.dim(1);
  if ((!w.valid() || !b.valid()) && channels < 0)
    unsupported("aten::group_norm: no weight or bias and a dynamic channel dim (the defaults need C)");
  Value scale = w.valid() ? to_dtype(ctx, w, dt) : filled(ctx, {channels}, 1.0, dt);
  Value bias = b.valid() ? to_dtype(ctx, b, dt) : filled(ctx, {channels}, 0.0, dt);
  ctx.set_output(0, ctx.op("GroupNormalization", {x, scale, bias},
                           {Attr::f("epsilon", eps), Attr::i("num_groups", groups)}));
}
