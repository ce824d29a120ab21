// torchvision::ps_roi_align (position-sensitive RoIAlign) -> RoiAlign on every channel, then for
// output channel c and bin (i, j) the value of input channel (c * ph + i) * pw + j at that bin: the
// [K, C*P, ph, pw] result (P = ph*pw) is reshaped to [K, C, P*P] and the P "diagonal" entries
// b*(P+1) are gathered, then reshaped to [K, C, ph, pw].
//
// ps_roi_align samples as roi_align with aligned=True (half-pixel shift, no 1x1 minimum), so it
// needs RoiAlign's half_pixel mode: opset 16. RoiAlign computes every bin of every channel, P times
// the work of the op itself. The channel-mapping output (for the backward pass) is not produced; a
// model that reads it is refused by the host ("did not bind output 1").
#include <torch2onnx/plugin.hpp>

#include "rois.hpp"

#include <algorithm>

using namespace t2o;
using namespace t2o::pack;

// torchvision::ps_roi_align(Tensor input, Tensor rois, float spatial_scale, int pooled_height,
//                           int pooled_width, int sampling_ratio) -> (Tensor, Tensor)
T2O_SYMBOLIC("torchvision::ps_roi_align", 16) {
  Value input = ctx.input(0), rois = ctx.input(1);
  for (int i = 2; i <= 5; ++i)
    if (!ctx.input(i).is_const())
      unsupported("torchvision::ps_roi_align: argument " + std::to_string(i) + " is computed at run time");
  int64_t ph = ctx.input(3).to_int(), pw = ctx.input(4).to_int();
  int64_t bins = ph * pw;
  int64_t channels = input.rank() == 4 ? input.dim(1) : -1;
  if (channels < 0) unsupported("torchvision::ps_roi_align: the input's channel count is not fixed");
  if (bins <= 0 || channels % bins != 0)
    fail("torchvision::ps_roi_align: input channels " + std::to_string(channels) + " not divisible by " +
         std::to_string(ph) + "*" + std::to_string(pw));
  RoiColumns r = split_rois(ctx, rois);
  Value pooled = ctx.op("RoiAlign", {input, r.boxes, r.batch_indices},
                        {Attr::s("mode", "avg"), Attr::i("output_height", ph), Attr::i("output_width", pw),
                         Attr::i("sampling_ratio", std::max<int64_t>(0, ctx.input(5).to_int())),
                         Attr::f("spatial_scale", ctx.input(2).to_float()),
                         Attr::s("coordinate_transformation_mode", "half_pixel")});
  const int64_t out_channels = channels / bins;
  // Reshape's 0 copies the roi count, which varies at run time.
  Value grouped = ctx.op("Reshape", {pooled, ctx.const_i64({0, out_channels, bins * bins})});
  std::vector<int64_t> diagonal;
  for (int64_t b = 0; b < bins; ++b) diagonal.push_back(b * (bins + 1));
  Value picked = ctx.op("Gather", {grouped, ctx.const_i64(diagonal)}, {Attr::i("axis", 2)});
  ctx.set_output(0, ctx.op("Reshape", {picked, ctx.const_i64({0, out_channels, ph, pw})}));
}
