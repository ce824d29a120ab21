// aten::pad, aten::constant_pad_nd, aten::reflection_pad{1,2,3}d, aten::replication_pad{1,2,3}d
// -> Pad (opset 11: pads and constant_value are inputs). Pads holding run-time ints are reordered
// to ONNX's order with one Gather from Concat(pads, [0]) (the appended 0 fills unpadded axes).
#include <torch2onnx/plugin.hpp>

#include "common/pad_args.hpp"

using namespace t2o;
using namespace t2o::pack;

static void pad(Ctx& ctx) {
  PadArgs a = parse_pad(ctx);
  if (a.mode == "circular") return ctx.set_output(0, circular_pad(ctx, a));
  Value pads;
  if (all_const(a.pad)) {
    pads = ctx.const_i64(onnx_pads(a.pad.to_ints(), a.rank));
  } else {
    if (!a.pad.is_list()) unsupported(ctx.kind() + ": pads given as a tensor");
    int64_t len = a.pad.list_size();
    std::vector<int64_t> idx(2 * (size_t)a.rank, len);  // index `len` = the appended 0
    for (int64_t i = 0; i < len / 2; ++i) {
      int64_t dim = a.rank - 1 - i;
      idx[(size_t)dim] = 2 * i;
      idx[(size_t)(a.rank + dim)] = 2 * i + 1;
    }
    Value ext = ctx.op("Concat", {int_list_tensor(ctx, a.pad), ctx.const_i64({0})}, {Attr::i("axis", 0)});
    pads = ctx.op("Gather", {ext, ctx.const_i64(idx)}, {Attr::i("axis", 0)});
  }
  std::vector<Value> in{a.x, pads};
  if (a.mode == "constant") in.push_back(ctx.scalar(a.x.dtype(), a.value));
  ctx.set_output(0, ctx.op("Pad", in, {Attr::s("mode", a.mode)}));
}

T2O_SYMBOLIC("aten::pad", 11) { pad(ctx); }
T2O_SYMBOLIC("aten::constant_pad_nd", 11) { pad(ctx); }
T2O_SYMBOLIC("aten::reflection_pad1d", 11) { pad(ctx); }
T2O_SYMBOLIC("aten::reflection_pad2d", 11) { pad(ctx); }
T2O_SYMBOLIC("aten::reflection_pad3d", 11) { pad(ctx); }
T2O_SYMBOLIC("aten::replication_pad1d", 11) { pad(ctx); }
T2O_SYMBOLIC("aten::replication_pad2d", 11) { pad(ctx); }
T2O_SYMBOLIC("aten::replication_pad3d", 11) { pad(ctx); }
