// aten::affine_grid_generator (F.affine_grid) -> AffineGrid (new in opset 20): theta (N, 2, 3) for
// a 4-D size (N, C, H, W), (N, 3, 4) for a 5-D size (N, C, D, H, W).
// affine_grid_generator(Tensor theta, int[] size, bool align_corners) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::affine_grid_generator", 20) {
  Value theta = ctx.input(0), size = ctx.input(1);
  Value align = ctx.input(2);
  if (!align.is_const()) unsupported("aten::affine_grid_generator: argument 'align_corners' computed at run time");
  if (!size.is_list()) unsupported("aten::affine_grid_generator: argument 'size' given as a tensor");
  int64_t n = size.list_size();
  if (n != 4 && n != 5) unsupported("aten::affine_grid_generator: size of length " + std::to_string(n) + " (4 or 5 expected)");
  if (!is_float_dtype(theta.dtype())) unsupported("aten::affine_grid_generator: theta of a non-float element type");
  Value sizes = all_const(size) ? ctx.const_i64(size.to_ints()) : int_list_tensor(ctx, size);
  ctx.set_output(0, ctx.op("AffineGrid", {theta, sizes}, {Attr::i("align_corners", align.to_bool() ? 1 : 0)}));
}
