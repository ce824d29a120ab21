// aten::affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) -> Tensor
// (F.affine_grid; ONNX AffineGrid is opset 20.) The base grid of normalized coordinates for the
// static spatial size (x varies along W, then y along H, then z along D, and a column of ones) is a
// constant (1, H*W, 3) or (1, D*H*W, 4); the grid is its MatMul with theta transposed, reshaped to
// (N, H, W, 2) / (N, D, H, W, 3). Coordinates are linspace(-1, 1, n) in float, scaled by (n-1)/n
// when align_corners=False (0 when n = 1), as PyTorch computes them.
#include <torch2onnx/plugin.hpp>

#include "common/constants.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

std::vector<float> coords(int64_t n, bool align_corners) {
  std::vector<float> c;
  if (n <= 1) return std::vector<float>((size_t)(n < 0 ? 0 : n), 0.0f);
  float step = 2.0f / (float)(n - 1);
  for (int64_t i = 0; i < n; ++i) c.push_back(i < n / 2 ? -1.0f + step * (float)i : 1.0f - step * (float)(n - 1 - i));
  if (!align_corners)
    for (auto& v : c) v = v * (float)(n - 1) / (float)n;  // range * (n - 1) / n, in that order
  return c;
}

}  // namespace

T2O_SYMBOLIC("aten::affine_grid_generator", 9) {
  Value theta = ctx.input(0);
  if (!all_const(ctx.input(1))) unsupported("aten::affine_grid_generator: argument 'size' must be constant");
  std::vector<int64_t> size = ctx.input(1).to_ints();
  bool align = ctx.input(2).to_bool();
  if (size.size() != 4 && size.size() != 5)
    fail("aten::affine_grid_generator: size must have 4 or 5 entries, got " + str(size));
  int64_t spatial = (int64_t)size.size() - 2;
  // Spatial sizes from the last (x) to the first.
  std::vector<std::vector<float>> axes;
  for (int64_t k = (int64_t)size.size() - 1; k >= 2; --k) axes.push_back(coords(size[(size_t)k], align));
  std::vector<double> base;
  int64_t points = 1;
  for (int64_t k = 2; k < (int64_t)size.size(); ++k) points *= size[(size_t)k];
  // Row-major over (D,) H, W: the fastest index is x.
  std::vector<int64_t> idx((size_t)spatial, 0);
  for (int64_t p = 0; p < points; ++p) {
    int64_t rest = p;
    for (int64_t a = 0; a < spatial; ++a) {  // a = 0 is x (W)
      int64_t n = size[size.size() - 1 - (size_t)a];
      idx[(size_t)a] = rest % n;
      rest /= n;
    }
    for (int64_t a = 0; a < spatial; ++a) base.push_back(axes[(size_t)a][(size_t)idx[(size_t)a]]);
    base.push_back(1.0);
  }
  t2o_dtype dt = theta.dtype();
  Value grid = constant_of(ctx, dt, {1, points, spatial + 1}, base);
  Value tt = ctx.op("Transpose", {ctx.as_onnx(theta)}, {Attr::ints("perm", {0, 2, 1})});
  Value y = ctx.op("MatMul", {grid, tt});  // (N, points, spatial)
  std::vector<int64_t> shape{-1};
  for (int64_t k = 2; k < (int64_t)size.size(); ++k) shape.push_back(size[(size_t)k]);
  shape.push_back(spatial);
  ctx.set_output(0, ctx.op("Reshape", {y, ctx.const_i64(shape)}));
}
