// aten::pad and the reflection/replication pads -> Pad with `axes` (as at opset 18); circular
// padding (mode="circular") becomes Pad's mode wrap, new in opset 19 (negative pads, which crop,
// keep opset 11's slices).
#include <torch2onnx/plugin.hpp>

#include "common/pad_args.hpp"
#include "common/pad_forms.hpp"

using namespace t2o;
using namespace t2o::pack;

static void pad(Ctx& ctx) { ctx.set_output(0, pad_with_axes(ctx, parse_pad(ctx), true)); }

T2O_SYMBOLIC("aten::pad", 19) { pad(ctx); }
T2O_SYMBOLIC("aten::constant_pad_nd", 19) { pad(ctx); }
T2O_SYMBOLIC("aten::reflection_pad1d", 19) { pad(ctx); }
T2O_SYMBOLIC("aten::reflection_pad2d", 19) { pad(ctx); }
T2O_SYMBOLIC("aten::reflection_pad3d", 19) { pad(ctx); }
T2O_SYMBOLIC("aten::replication_pad1d", 19) { pad(ctx); }
T2O_SYMBOLIC("aten::replication_pad2d", 19) { pad(ctx); }
T2O_SYMBOLIC("aten::replication_pad3d", 19) { pad(ctx); }
