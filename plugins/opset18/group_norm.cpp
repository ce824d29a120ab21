// aten::group_norm -> GroupNormalization (new in opset 18). Opset 18's scale and bias are per
// group, PyTorch's weight and bias per channel: the node gets ones and zeros, then the affine
// weight/bias are applied per channel as at opset 9. (From 21 they go into the node: opset21 pack.)
// group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "common/group_norm.hpp"
#include "common/nn_consts.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::group_norm", 18) {
  GroupNormArgs a = group_norm_args(ctx, true);
  Value y = ctx.op("GroupNormalization",
                   {a.x, filled(ctx, {a.groups}, 1.0, a.dtype), filled(ctx, {a.groups}, 0.0, a.dtype)},
                   {Attr::f("epsilon", a.eps), Attr::i("num_groups", a.groups)});
  ctx.set_output(0, group_norm_affine(ctx, y, a));
}
