// aten::upsample_nearest{1,2,3}d -> Resize (opset 10: scales input, asymmetric coordinates; same
// rules as Upsample at 9, see nearest_before_11). The other upsample modes keep their opset-9 form.
#include <torch2onnx/plugin.hpp>

#include "common/interpolate.hpp"

using namespace t2o;
using namespace t2o::pack;

static void nearest(Ctx& ctx, size_t n) { ctx.set_output(0, nearest_before_11(ctx, parse_interp(ctx, n, false), "Resize")); }

T2O_SYMBOLIC("aten::upsample_nearest1d", 10) { nearest(ctx, 1); }
T2O_SYMBOLIC("aten::upsample_nearest2d", 10) { nearest(ctx, 2); }
T2O_SYMBOLIC("aten::upsample_nearest3d", 10) { nearest(ctx, 3); }
