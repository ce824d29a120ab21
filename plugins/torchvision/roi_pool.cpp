// torchvision::roi_pool -> MaxRoiPool: max over integer bins of each roi (corners rounded half away
// from zero after scaling, each roi at least 1x1, empty bins 0), the same rule in both.
// Only the pooled values are produced: the argmax output (for the backward pass) has no ONNX form;
// a model that reads it is refused by the host ("did not bind output 1").
#include <torch2onnx/plugin.hpp>

using namespace t2o;

// torchvision::roi_pool(Tensor input, Tensor rois, float spatial_scale, int pooled_height,
//                       int pooled_width) -> (Tensor, Tensor)
T2O_SYMBOLIC("torchvision::roi_pool", 9) {
  Value input = ctx.input(0), rois = ctx.input(1);
  for (int i = 2; i <= 4; ++i)
    if (!ctx.input(i).is_const())
      unsupported("torchvision::roi_pool: argument " + std::to_string(i) + " is computed at run time");
  if (rois.rank() != 2 || rois.dim(1) != 5)
    unsupported("torchvision::roi_pool: argument 'rois' must be [K, 5] (batch index, x1, y1, x2, y2)");
  if (rois.dtype() != input.dtype())
    unsupported("torchvision::roi_pool: arguments 'input' and 'rois' of different dtypes");
  ctx.set_output(0, ctx.op("MaxRoiPool", {input, rois},
                           {Attr::ints("pooled_shape", {ctx.input(3).to_int(), ctx.input(4).to_int()}),
                            Attr::f("spatial_scale", ctx.input(2).to_float())}));
}
