// aten::_weight_norm (nn.utils.weight_norm): w = v * (g / ||v||), the L2 norm taken over every
// axis but `dim` (kept, so it broadcasts against v); dim = -1 (weight_norm(dim=None)) takes it
// over all axes, as ATen's norm_except_dim does. A 1-D v with dim 0 has one element per row: |v|.
//
// _weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor
#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::_weight_norm", 9) {
  Value v = ctx.input(0), g = ctx.input(1);
  if (!ctx.input(2).is_const()) unsupported("aten::_weight_norm: argument 'dim' is computed at run time");
  int64_t dim = ctx.input(2).to_int();
  int64_t r = known_rank(ctx, v, "input 'v'");
  std::vector<int64_t> axes;
  if (dim == -1) {
    for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  } else {
    int64_t kept = normalize_axis(ctx, dim, r);
    for (int64_t i = 0; i < r; ++i)
      if (i != kept) axes.push_back(i);
  }
  Value norm;
  if (axes.empty() && r > 0) {
    norm = ctx.op("Abs", {v});  // an empty axes list would mean "all axes" to Reduce*
  } else {
    norm = reduce(ctx, "ReduceL2", v, axes, true);
  }
  ctx.set_output(0, ctx.op("Mul", {v, ctx.op("Div", {g, norm})}));
}
