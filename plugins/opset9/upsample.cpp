// aten::upsample_nearest{1,2,3}d -> Upsample (opset 9, scales input; see nearest_before_11),
// aten::upsample_nearest_exact{1,2,3}d -> Gather with PyTorch's index tables (static dims),
// aten::upsample_linear1d / upsample_bilinear2d / upsample_trilinear3d -> MatMul with PyTorch's
// interpolation matrices (static dims): Upsample/Resize before opset 11 only know asymmetric
// coordinates, which match neither align_corners=True nor PyTorch's half-pixel mapping. Bicubic
// needs opset 11.
#include <torch2onnx/plugin.hpp>

#include "common/interpolate.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void nearest(Ctx& ctx, size_t n) { ctx.set_output(0, nearest_before_11(ctx, parse_interp(ctx, n, false), "Upsample")); }

void nearest_exact(Ctx& ctx, size_t n) {
  Value y = nearest_by_gather(ctx, parse_interp(ctx, n, false), true);
  if (!y.valid()) unsupported(ctx.kind() + ": dynamic spatial dims need opset >= 11");
  ctx.set_output(0, y);
}

void linear(Ctx& ctx, size_t n) {
  Value y = linear_by_matmul(ctx, parse_interp(ctx, n, true));
  if (!y.valid()) unsupported(ctx.kind() + ": dynamic spatial dims or output size need opset >= 11");
  ctx.set_output(0, y);
}

}  // namespace

T2O_SYMBOLIC("aten::upsample_nearest1d", 9) { nearest(ctx, 1); }
T2O_SYMBOLIC("aten::upsample_nearest2d", 9) { nearest(ctx, 2); }
T2O_SYMBOLIC("aten::upsample_nearest3d", 9) { nearest(ctx, 3); }
T2O_SYMBOLIC("aten::_upsample_nearest_exact1d", 9) { nearest_exact(ctx, 1); }
T2O_SYMBOLIC("aten::_upsample_nearest_exact2d", 9) { nearest_exact(ctx, 2); }
T2O_SYMBOLIC("aten::_upsample_nearest_exact3d", 9) { nearest_exact(ctx, 3); }
T2O_SYMBOLIC("aten::upsample_linear1d", 9) { linear(ctx, 1); }
T2O_SYMBOLIC("aten::upsample_bilinear2d", 9) { linear(ctx, 2); }
T2O_SYMBOLIC("aten::upsample_trilinear3d", 9) { linear(ctx, 3); }
