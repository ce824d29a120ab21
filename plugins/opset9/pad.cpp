// aten::pad, aten::constant_pad_nd, aten::reflection_pad{1,2,3}d, aten::replication_pad{1,2,3}d
// -> Pad (opset 9: pads/mode/value attributes, so the pads must be constants). PyTorch's
// replicate is ONNX's edge; circular (no ONNX mode before 19) is Slice + Concat.
#include <torch2onnx/plugin.hpp>

#include "common/pad_args.hpp"

using namespace t2o;
using namespace t2o::pack;

static void pad(Ctx& ctx) {
  PadArgs a = parse_pad(ctx);
  if (a.mode == "circular") return ctx.set_output(0, circular_pad(ctx, a));
  if (!all_const(a.pad)) unsupported(ctx.kind() + ": pads computed at run time need opset >= 11");
  std::vector<Attr> attrs{Attr::ints("pads", onnx_pads(a.pad.to_ints(), a.rank)), Attr::s("mode", a.mode)};
  if (a.mode == "constant") attrs.push_back(Attr::f("value", a.value));
  t2o_dtype dt = a.x.dtype();
  if (is_float_dtype(dt) && dt != T2O_DTYPE_BFLOAT16) return ctx.set_output(0, ctx.op("Pad", {a.x}, attrs));
  // Pad-2 takes floating-point tensors only: pad other types in double (exact for |v| < 2^53).
  Value xd = ctx.op("Cast", {a.x}, {Attr::i("to", T2O_DTYPE_DOUBLE)});
  ctx.set_output(0, ctx.op("Cast", {ctx.op("Pad", {xd}, attrs)}, {Attr::i("to", dt)}));
}

T2O_SYMBOLIC("aten::pad", 9) { pad(ctx); }
T2O_SYMBOLIC("aten::constant_pad_nd", 9) { pad(ctx); }
T2O_SYMBOLIC("aten::reflection_pad1d", 9) { pad(ctx); }
T2O_SYMBOLIC("aten::reflection_pad2d", 9) { pad(ctx); }
T2O_SYMBOLIC("aten::reflection_pad3d", 9) { pad(ctx); }
T2O_SYMBOLIC("aten::replication_pad1d", 9) { pad(ctx); }
T2O_SYMBOLIC("aten::replication_pad2d", 9) { pad(ctx); }
T2O_SYMBOLIC("aten::replication_pad3d", 9) { pad(ctx); }
