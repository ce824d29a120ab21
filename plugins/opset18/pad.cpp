// aten::pad, aten::constant_pad_nd, aten::reflection_pad{1,2,3}d, aten::replication_pad{1,2,3}d
// -> Pad with the `axes` input (new in opset 18): only the padded axes are listed (PyTorch pads the
// last len(pad)/2 axes). Pads computed at run time, and circular padding, keep opset 11's forms
// (opset19/pad.cpp turns circular padding into mode wrap).
#include <torch2onnx/plugin.hpp>

#include "common/pad_args.hpp"
#include "common/pad_forms.hpp"

using namespace t2o;
using namespace t2o::pack;

static void pad(Ctx& ctx) { ctx.set_output(0, pad_with_axes(ctx, parse_pad(ctx), false)); }

T2O_SYMBOLIC("aten::pad", 18) { pad(ctx); }
T2O_SYMBOLIC("aten::constant_pad_nd", 18) { pad(ctx); }
T2O_SYMBOLIC("aten::reflection_pad1d", 18) { pad(ctx); }
T2O_SYMBOLIC("aten::reflection_pad2d", 18) { pad(ctx); }
T2O_SYMBOLIC("aten::reflection_pad3d", 18) { pad(ctx); }
T2O_SYMBOLIC("aten::replication_pad1d", 18) { pad(ctx); }
T2O_SYMBOLIC("aten::replication_pad2d", 18) { pad(ctx); }
T2O_SYMBOLIC("aten::replication_pad3d", 18) { pad(ctx); }
