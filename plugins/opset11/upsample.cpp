// aten::upsample_* -> Resize (opset 11: X, roi, scales, sizes), valid through 17:
//   nearest        mode=nearest, asymmetric coordinates, nearest_mode=floor (PyTorch: floor(o * in/out))
//   nearest-exact  mode=nearest, half_pixel, nearest_mode=round_prefer_ceil (floor((o + 0.5) * in/out))
//   linear/bilinear/trilinear/bicubic  mode=linear|cubic (cubic_coeff_a=-0.75, PyTorch's A), with
//                  align_corners or half_pixel coordinates (not pytorch_half_pixel: for an output
//                  length of 1 it samples index 0, where PyTorch samples the centre, in*0.5-0.5).
// Given scale factors go in `scales` (PyTorch then maps coordinates with them, as Resize does);
// given sizes go in `sizes` = (N, C) of Shape(x) + output_size, which may hold run-time ints.
// roi is unused (an empty tensor); scales is empty when sizes is given.
#include <torch2onnx/plugin.hpp>

#include "common/interpolate.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

Value empty_f32(Ctx& ctx) { return ctx.tensor(T2O_DTYPE_FLOAT, {0}, nullptr, 0); }

// The full-rank sizes input: N and C of x (constants when static) then the output sizes.
Value full_sizes(Ctx& ctx, const Interp& I) {
  Value out = int_list_tensor(ctx, I.out_size);
  if (I.out_size.is_list() && I.out_size.list_size() == 1 && I.n > 1)
    fail(ctx.kind() + ": a single output size for " + std::to_string(I.n) + " spatial axes");
  int64_t n = I.x.dim(0), c = I.x.dim(1);
  Value lead = n >= 0 && c >= 0 ? ctx.const_i64({n, c}) : dims_tensor(ctx, I.x, {0, 1});
  return ctx.op("Concat", {lead, out}, {Attr::i("axis", 0)});
}

void resize(Ctx& ctx, size_t n, const std::string& mode, bool has_align, bool exact = false) {
  Interp I = parse_interp(ctx, n, has_align);
  std::vector<Attr> attrs{Attr::s("mode", mode)};
  if (mode == "nearest") {
    attrs.push_back(Attr::s("coordinate_transformation_mode", exact ? "half_pixel" : "asymmetric"));
    attrs.push_back(Attr::s("nearest_mode", exact ? "round_prefer_ceil" : "floor"));
  } else {
    attrs.push_back(
        Attr::s("coordinate_transformation_mode", I.align_corners ? "align_corners" : "half_pixel"));
    if (mode == "cubic") attrs.push_back(Attr::f("cubic_coeff_a", -0.75));
  }
  bool have_scales = false;
  for (double s : I.scales) have_scales = have_scales || s > 0;
  bool use_scales = have_scales && !I.out_size.valid();
  if (have_scales && I.out_size.valid()) {
    // Per-axis-scale overload: sizes define the output, scales the coordinate mapping. Resize can
    // express that only when they agree (out = floor(in * scale) on every axis).
    std::vector<int64_t> in = in_lengths(I), out = static_out_lengths(I);
    bool agree = !out.empty();
    for (size_t i = 0; i < n && agree; ++i)
      agree = I.scales[i] > 0 && in[i] >= 0 && (int64_t)std::floor((double)in[i] * I.scales[i]) == out[i];
    if (!agree)
      unsupported(ctx.kind() + ": output_size with scales that do not give that size (scales " +
                  std::to_string(I.scales[0]) + ", ...)");
    use_scales = true;
  }
  Value y;
  if (use_scales) {
    std::vector<float> scales{1.0f, 1.0f};
    for (double s : I.scales) {
      if (s <= 0) unsupported(ctx.kind() + ": scale factor " + std::to_string(s));
      scales.push_back((float)s);
    }
    y = ctx.op("Resize", {I.x, empty_f32(ctx), ctx.const_f32(scales)}, attrs);
  } else {
    y = ctx.op("Resize", {I.x, empty_f32(ctx), empty_f32(ctx), full_sizes(ctx, I)}, attrs);
  }
  ctx.set_output(0, y);
}

}  // namespace

T2O_SYMBOLIC("aten::upsample_nearest1d", 11) { resize(ctx, 1, "nearest", false); }
T2O_SYMBOLIC("aten::upsample_nearest2d", 11) { resize(ctx, 2, "nearest", false); }
T2O_SYMBOLIC("aten::upsample_nearest3d", 11) { resize(ctx, 3, "nearest", false); }
T2O_SYMBOLIC("aten::_upsample_nearest_exact1d", 11) { resize(ctx, 1, "nearest", false, true); }
T2O_SYMBOLIC("aten::_upsample_nearest_exact2d", 11) { resize(ctx, 2, "nearest", false, true); }
T2O_SYMBOLIC("aten::_upsample_nearest_exact3d", 11) { resize(ctx, 3, "nearest", false, true); }
T2O_SYMBOLIC("aten::upsample_linear1d", 11) { resize(ctx, 1, "linear", true); }
T2O_SYMBOLIC("aten::upsample_bilinear2d", 11) { resize(ctx, 2, "linear", true); }
T2O_SYMBOLIC("aten::upsample_trilinear3d", 11) { resize(ctx, 3, "linear", true); }
T2O_SYMBOLIC("aten::upsample_bicubic2d", 11) { resize(ctx, 2, "cubic", true); }
