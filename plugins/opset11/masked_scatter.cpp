// aten::masked_scatter(self, mask, source) (+ masked_scatter_): self's elements where mask (broadcast
// to self) is true are replaced, in row-major order, by source's first elements. Flattened: the
// true positions (NonZero) take source[:N] through ScatterND (opset 11; none below: the host
// reports that the op needs opset 11).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void masked_scatter(Ctx& ctx) {
  Value x = ctx.input(0), mask = ctx.input(1), source = ctx.input(2);
  Value shape = ctx.op("Shape", {x});
  Value m = ctx.as_onnx(mask);
  if (!(x.has_static_shape() && mask.has_static_shape() && x.dims() == mask.dims())) m = ctx.op("Expand", {m, shape});
  Value flat_x = ctx.op("Reshape", {x, ctx.const_i64({-1})});
  if (mask.dtype() != T2O_DTYPE_BOOL) m = ctx.op("Cast", {m}, {Attr::i("to", T2O_DTYPE_BOOL)});  // uint8 masks
  Value flat_m = ctx.op("Reshape", {m, ctx.const_i64({-1})});
  Value positions = ctx.op("Transpose", {ctx.op("NonZero", {flat_m})}, {Attr::ints("perm", {1, 0})});  // [N, 1]
  Value count = slice(ctx, ctx.op("Shape", {positions}), {0}, {0}, {1});
  Value src = ctx.op("Reshape", {to_dtype(ctx, source, x.dtype()), ctx.const_i64({-1})});
  Value updates = ctx.op("Slice", {src, ctx.const_i64({0}), count, ctx.const_i64({0})});
  Value y = ctx.op("ScatterND", {flat_x, positions, updates});
  ctx.set_output(0, ctx.op("Reshape", {y, shape}));
}

}  // namespace

T2O_SYMBOLIC("aten::masked_scatter", 11) { masked_scatter(ctx); }
T2O_SYMBOLIC("aten::masked_scatter_", 11) { masked_scatter(ctx); }
