// aten::group_norm -> GroupNormalization (new in opset 18). Opset 18's scale and bias are per
// group, PyTorch's weight and bias per channel: the node gets ones and zeros, then the affine
// weight/bias are applied per channel as at opset 9. (From 21 they go into the node: opset21 pack.)
// group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "common/nn_consts.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::group_norm", 18) {
  Value x = ctx.input(0);
  int64_t groups = ctx.input(1).to_int();
  Value w = opt_input(ctx, 2), b = opt_input(ctx, 3);
  double eps = ctx.input(4).to_float();
  int32_t r = x.rank();
  if (r < 2) unsupported("aten::group_norm: input rank " + std::to_string(r) + " (need a known rank >= 2)");
  t2o_dtype dt = x.dtype();
  if (!is_float_dtype(dt)) unsupported("aten::group_norm: element type " + std::to_string((int)dt) + " (float types only)");
  Value y = ctx.op("GroupNormalization", {x, filled(ctx, {groups}, 1.0, dt), filled(ctx, {groups}, 0.0, dt)},
                   {Attr::f("epsilon", eps), Attr::i("num_groups", groups)});
  std::vector<int64_t> tail;  // axes after C, so weight (C,) broadcasts as (C, 1, ..., 1)
  for (int32_t i = 1; i < r - 1; ++i) tail.push_back(i);
  auto per_channel = [&](const Value& v) { return tail.empty() ? v : unsqueeze(ctx, v, tail); };
  if (w.valid()) y = ctx.op("Mul", {y, per_channel(w)});
  if (b.valid()) y = ctx.op("Add", {y, per_channel(b)});
  ctx.set_output(0, y);
}
