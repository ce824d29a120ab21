// aten::layer_norm -> LayerNormalization (new in opset 17), normalizing from axis -k on
// (k = len(normalized_shape)). Its Scale input is required: a missing weight becomes ones.
#include <torch2onnx/plugin.hpp>

#include "common/nn_consts.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

// layer_norm(input, normalized_shape, weight?, bias?, eps, cudnn_enable)
T2O_SYMBOLIC("aten::layer_norm", 17) {
  Value x = ctx.input(0);
  Value shape_arg = ctx.input(1);
  if (!all_const(shape_arg)) unsupported("aten::layer_norm: argument 'normalized_shape' is computed at run time");
  std::vector<int64_t> shape = shape_arg.to_ints();
  Value w = opt_input(ctx, 2), b = opt_input(ctx, 3);
  double eps = ctx.input(4).to_float();
  int32_t r = x.rank();
  if (r >= 0 && ((int32_t)shape.size() > r || shape.empty()))
    fail("aten::layer_norm: normalized_shape " + str(shape) + " for a rank-" + std::to_string(r) + " input");
  if (!w.valid()) w = filled(ctx, shape, 1.0, x.dtype());
  std::vector<Value> in{x, w};
  if (b.valid()) in.push_back(b);
  ctx.set_output(0, ctx.op("LayerNormalization", in,
                           {Attr::i("axis", -(int64_t)shape.size()), Attr::f("epsilon", eps)}));
}
