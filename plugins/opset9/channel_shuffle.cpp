// aten::channel_shuffle / native_channel_shuffle(self, groups): [N, C, *] -> [N, g, C/g, rest]
// -> swap the group axes -> back to self's shape (C static).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void channel_shuffle(Ctx& ctx) {
  Value x = ctx.input(0);
  if (x.rank() < 2) unsupported(ctx.kind() + ": needs an input of rank >= 2");
  if (!ctx.input(1).is_const()) unsupported(ctx.kind() + ": argument 'groups' must be constant");
  int64_t g = ctx.input(1).to_int(), c = x.dim(1);
  if (c < 0) unsupported(ctx.kind() + ": the channel dim must have a static size");
  if (g <= 0 || c % g != 0) fail(ctx.kind() + ": " + std::to_string(c) + " channels in " + std::to_string(g) + " groups");
  Value grouped = ctx.op("Reshape", {x, ctx.const_i64({0, g, c / g, -1})});
  Value swapped = ctx.op("Transpose", {grouped}, {Attr::ints("perm", {0, 2, 1, 3})});
  ctx.set_output(0, ctx.op("Reshape", {swapped, shape_of(ctx, x)}));
}

}  // namespace

T2O_SYMBOLIC("aten::channel_shuffle", 9) { channel_shuffle(ctx); }
T2O_SYMBOLIC("aten::native_channel_shuffle", 9) { channel_shuffle(ctx); }
