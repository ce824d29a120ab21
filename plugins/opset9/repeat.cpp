// aten::repeat(self, repeats) and aten::tile(self, dims) -> Tile. Extra leading repeats add leading
// axes of size 1 first (PyTorch allows len(repeats) >= rank).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::repeat", 9) {
  Value x = ctx.input(0), repeats = ctx.input(1);
  int64_t r = known_rank(ctx, x);
  int64_t n = repeats.kind() == T2O_KIND_LIST ? repeats.list_size() : repeats.dim(0);
  if (n < 0) unsupported("aten::repeat: number of repeats unknown");
  if (n < r) fail("aten::repeat: " + std::to_string(n) + " repeats for a rank-" + std::to_string(r) + " input");
  if (n > r) {
    std::vector<int64_t> axes;
    for (int64_t i = 0; i < n - r; ++i) axes.push_back(i);
    x = unsqueeze(ctx, x, axes);
  }
  ctx.set_output(0, ctx.op("Tile", {x, int_list_tensor(ctx, repeats)}));
}

// aten::tile(self, dims): repeat after padding the shorter of dims and the shape with leading 1s.
T2O_SYMBOLIC("aten::tile", 9) {
  Value x = ctx.input(0), reps = ctx.input(1);
  int64_t r = known_rank(ctx, x);
  if (!all_const(reps)) unsupported("aten::tile: argument 'dims' computed at run time");
  std::vector<int64_t> d = reps.to_ints();
  while ((int64_t)d.size() < r) d.insert(d.begin(), 1);
  Value in = ctx.as_onnx(x);
  if ((int64_t)d.size() > r) {
    std::vector<int64_t> axes;
    for (int64_t i = 0; i < (int64_t)d.size() - r; ++i) axes.push_back(i);
    in = unsqueeze(ctx, in, axes);
  }
  ctx.set_output(0, ctx.op("Tile", {in, ctx.const_i64(d)}));
}
