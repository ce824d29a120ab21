// aten::_upsample_bilinear2d_aa / _upsample_bicubic2d_aa (F.interpolate(..., antialias=True)) ->
// Resize with antialias=1 (new in opset 18) on the two spatial axes (`axes`, also new in 18):
// when downsampling, the interpolation filter is widened by 1/scale (PIL-style, as PyTorch's).
// PyTorch's antialiased bicubic uses a = -0.5 (PIL's). align_corners=True is refused: PyTorch then
// maps coordinates as align_corners while Resize's antialias filter is defined on half-pixel centers.
// _upsample_bilinear2d_aa(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor
// _upsample_bilinear2d_aa.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/interpolate.hpp"

using namespace t2o;
using namespace t2o::pack;

static void resize_antialias(Ctx& ctx, const std::string& mode) {
  Interp I = parse_interp(ctx, 2, true);
  if (I.align_corners) unsupported(ctx.kind() + ": align_corners=True with antialias");
  // PyTorch (like PIL) weighs only the taps inside the image, renormalized: exclude_outside=1.
  std::vector<Attr> attrs{Attr::s("mode", mode), Attr::i("antialias", 1), Attr::ints("axes", {2, 3}),
                          Attr::s("coordinate_transformation_mode", "half_pixel"), Attr::i("exclude_outside", 1)};
  if (mode == "cubic") attrs.push_back(Attr::f("cubic_coeff_a", -0.5));
  bool have_scales = false;
  for (double s : I.scales) have_scales = have_scales || s > 0;
  Value none;
  if (!have_scales)
    return ctx.set_output(0, ctx.op("Resize", {I.x, none, none, int_list_tensor(ctx, I.out_size)}, attrs));
  // Scales map the coordinates (as in PyTorch when they are given); with an output_size too, Resize
  // can express it only when the two agree (out = floor(in * scale) on both axes).
  if (I.out_size.valid()) {
    std::vector<int64_t> in = in_lengths(I), out = static_out_lengths(I);
    bool agree = !out.empty();
    for (size_t i = 0; i < 2 && agree; ++i)
      agree = I.scales[i] > 0 && in[i] >= 0 && (int64_t)std::floor((double)in[i] * I.scales[i]) == out[i];
    if (!agree) unsupported(ctx.kind() + ": output_size with scales that do not give that size");
  }
  std::vector<float> scales;
  for (double s : I.scales) {
    if (s <= 0) unsupported(ctx.kind() + ": scale factor " + std::to_string(s));
    scales.push_back((float)s);
  }
  ctx.set_output(0, ctx.op("Resize", {I.x, none, ctx.const_f32(scales)}, attrs));
}

T2O_SYMBOLIC("aten::_upsample_bilinear2d_aa", 18) { resize_antialias(ctx, "linear"); }
T2O_SYMBOLIC("aten::_upsample_bicubic2d_aa", 18) { resize_antialias(ctx, "cubic"); }
