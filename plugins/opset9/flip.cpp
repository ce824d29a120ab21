// aten::flip(self, dims). ONNX has no Flip: at opset 9 (no Slice steps) each static axis is
// reversed by a Gather with constant indices; opset10/flip.cpp uses Slice with step -1.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::flip", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  if (r == 0) return ctx.set_output(0, x);  // dims [0] / [-1] of a 0-d tensor: nothing to reverse
  for (int64_t a : normalize_axes(ctx, ctx.input(1).to_ints(), r)) {
    int64_t D = ctx.input(0).dim((int32_t)a);  // gathered values carry no dims
    if (D < 0) unsupported("aten::flip: flipping dynamic axis " + std::to_string(a) + " needs opset >= 10");
    if (D <= 1) continue;
    std::vector<int64_t> idx;
    for (int64_t i = D - 1; i >= 0; --i) idx.push_back(i);
    x = ctx.op("Gather", {x, ctx.const_i64(idx)}, {Attr::i("axis", a)});
  }
  ctx.set_output(0, x);
}
