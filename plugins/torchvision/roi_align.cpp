// torchvision::roi_align -> RoiAlign (mode avg) on the rois' box columns, with the batch index
// column cast to int64.
//
// torchvision's aligned=False is RoiAlign's legacy sampling (no half-pixel shift, each roi at least
// 1x1): RoiAlign-10's only form, coordinate_transformation_mode output_half_pixel from 16.
// aligned=True shifts by half a pixel without the 1x1 minimum: half_pixel, which needs opset 16
// (torch.onnx refuses it below too). A sampling_ratio <= 0 is adaptive in both (ceil(roi size / output
// size) samples per bin): ONNX spells it 0.
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "rois.hpp"

#include <algorithm>

using namespace t2o;
using namespace t2o::pack;

namespace {

void roi_align(Ctx& ctx, bool half_pixel_form) {
  Value input = ctx.input(0), rois = ctx.input(1);
  for (int i = 2; i <= 6; ++i)
    if (!ctx.input(i).is_const())
      unsupported("torchvision::roi_align: argument " + std::to_string(i) + " is computed at run time");
  double spatial_scale = ctx.input(2).to_float();
  int64_t pooled_height = ctx.input(3).to_int(), pooled_width = ctx.input(4).to_int();
  int64_t sampling_ratio = std::max<int64_t>(0, ctx.input(5).to_int());
  bool aligned = ctx.input(6).to_bool();
  if (aligned && !half_pixel_form)
    unsupported("torchvision::roi_align: aligned=True (half-pixel sampling) needs --opset 16");
  RoiColumns r = split_rois(ctx, rois);
  std::vector<Attr> attrs{Attr::s("mode", "avg"), Attr::i("output_height", pooled_height),
                          Attr::i("output_width", pooled_width), Attr::i("sampling_ratio", sampling_ratio),
                          Attr::f("spatial_scale", spatial_scale)};
  if (half_pixel_form)
    attrs.push_back(Attr::s("coordinate_transformation_mode", aligned ? "half_pixel" : "output_half_pixel"));
  ctx.set_output(0, ctx.op("RoiAlign", {input, r.boxes, r.batch_indices}, attrs));
}

}  // namespace

// torchvision::roi_align(Tensor input, Tensor rois, float spatial_scale, int pooled_height,
//                        int pooled_width, int sampling_ratio, bool aligned) -> Tensor
T2O_SYMBOLIC("torchvision::roi_align", 10) { roi_align(ctx, false); }
T2O_SYMBOLIC("torchvision::roi_align", 16) { roi_align(ctx, true); }
