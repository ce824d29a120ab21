// nn.Unfold / nn.Fold, decomposed for opsets <= 17 (ONNX Col2Im is opset 18):
//   aten::im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor
//       (N, C, H, W) -> (N, C*kh*kw, L): zero Pad, spatial axes flattened, one Gather with a
//       constant (kh*kw, L) map of the window positions, Reshape. Exact; H and W must be static.
//   aten::col2im(Tensor self, int[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding,
//       int[2] stride) -> Tensor
//       (N, C*kh*kw, L) -> (N, C, H, W): for each kernel position, its (N, C, oh, ow) block is spread
//       by the stride (zeros interleaved with Pad + Reshape), placed at its offset with Pad and
//       summed; the padding is then sliced off.
// Unbatched inputs (no N) are handled with a batch axis of one.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

struct Window {
  std::vector<int64_t> k, d, p, s;  // kernel, dilation, padding, stride (h, w)
};

Window window(Ctx& ctx, int first) {
  return {expand_ints(ctx, ctx.input(first), 2, "kernel_size"), expand_ints(ctx, ctx.input(first + 1), 2, "dilation"),
          expand_ints(ctx, ctx.input(first + 2), 2, "padding"), expand_ints(ctx, ctx.input(first + 3), 2, "stride")};
}

int64_t out_len(const Window& w, int64_t size, int axis) {
  return (size + 2 * w.p[axis] - w.d[axis] * (w.k[axis] - 1) - 1) / w.s[axis] + 1;
}

}  // namespace

T2O_SYMBOLIC("aten::im2col", 9) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  if (r != 3 && r != 4) unsupported("aten::im2col: input must be 3-D or 4-D (rank " + std::to_string(r) + ")");
  Window w = window(ctx, 1);
  int64_t h = x.dim(r - 2), wd = x.dim(r - 1);
  if (h < 0 || wd < 0) unsupported("aten::im2col: the spatial dims must be static");
  int64_t oh = out_len(w, h, 0), ow = out_len(w, wd, 1);
  if (oh <= 0 || ow <= 0) fail("aten::im2col: the kernel does not fit the padded input");
  int64_t hp = h + 2 * w.p[0], wp = wd + 2 * w.p[1], l = oh * ow;
  std::vector<int64_t> map;
  for (int64_t ki = 0; ki < w.k[0]; ++ki)
    for (int64_t kj = 0; kj < w.k[1]; ++kj)
      for (int64_t a = 0; a < oh; ++a)
        for (int64_t b = 0; b < ow; ++b) map.push_back((a * w.s[0] + ki * w.d[0]) * wp + b * w.s[1] + kj * w.d[1]);
  t2o_dtype dt = x.dtype();
  Value y = with_batch(ctx, ctx.as_onnx(x), 2, [&](const Value& in) {
    Value padded = in;
    if (w.p[0] || w.p[1]) padded = pad_constant(ctx, in, dt, {0, 0, w.p[0], w.p[1], 0, 0, w.p[0], w.p[1]});
    Value flat = ctx.op("Reshape", {padded, ctx.const_i64({0, 0, hp * wp})});
    Value idx = ctx.tensor(T2O_DTYPE_INT64, {w.k[0] * w.k[1], l}, map.data(), map.size() * sizeof(int64_t));
    Value cols = ctx.op("Gather", {flat, idx}, {Attr::i("axis", 2)});  // (N, C, kh*kw, L)
    return ctx.op("Reshape", {cols, ctx.const_i64({0, -1, l})});
  });
  ctx.set_output(0, y);
}

T2O_SYMBOLIC("aten::col2im", 9) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  if (r != 2 && r != 3) unsupported("aten::col2im: input must be 2-D or 3-D (rank " + std::to_string(r) + ")");
  std::vector<int64_t> size = expand_ints(ctx, ctx.input(1), 2, "output_size");
  Window w = window(ctx, 2);
  int64_t oh = out_len(w, size[0], 0), ow = out_len(w, size[1], 1);
  if (oh <= 0 || ow <= 0) fail("aten::col2im: the kernel does not fit the padded output");
  int64_t l = x.dim(r - 1);
  if (l >= 0 && l != oh * ow)
    fail("aten::col2im: " + std::to_string(l) + " blocks, expected " + std::to_string(oh * ow) + " for output_size " +
         str(size));
  int64_t hp = size[0] + 2 * w.p[0], wp = size[1] + 2 * w.p[1];
  int64_t kk = w.k[0] * w.k[1];
  int64_t span_h = (oh - 1) * w.s[0] + 1, span_w = (ow - 1) * w.s[1] + 1;
  t2o_dtype dt = x.dtype();
  Value in = ctx.as_onnx(x);
  if (r == 2) in = unsqueeze(ctx, in, {0});
  Value blocks = ctx.op("Reshape", {in, ctx.const_i64({0, -1, kk, oh, ow})});  // (N, C, kh*kw, oh, ow)
  Value sum;
  for (int64_t ki = 0; ki < w.k[0]; ++ki)
    for (int64_t kj = 0; kj < w.k[1]; ++kj) {
      Value b = ctx.op("Gather", {blocks, ctx.scalar_i64(ki * w.k[1] + kj)}, {Attr::i("axis", 2)});  // (N, C, oh, ow)
      if (w.s[0] > 1 || w.s[1] > 1) {
        // (N, C, oh, 1, ow, 1) padded to (N, C, oh, sh, ow, sw): each value followed by stride-1 zeros.
        Value e = unsqueeze(ctx, b, {3, 5});
        e = pad_constant(ctx, e, dt, {0, 0, 0, 0, 0, 0, 0, 0, 0, w.s[0] - 1, 0, w.s[1] - 1});
        e = ctx.op("Reshape", {e, ctx.const_i64({0, 0, oh * w.s[0], ow * w.s[1]})});
        b = slice(ctx, e, {2, 3}, {0, 0}, {span_h, span_w});
      }
      int64_t top = ki * w.d[0], left = kj * w.d[1];
      Value placed = pad_constant(ctx, b, dt, {0, 0, top, left, 0, 0, hp - top - span_h, wp - left - span_w});
      sum = sum.valid() ? ctx.op("Add", {sum, placed}) : placed;
    }
  Value y = sum;
  if (w.p[0] || w.p[1]) y = slice(ctx, y, {2, 3}, {w.p[0], w.p[1]}, {w.p[0] + size[0], w.p[1] + size[1]});
  if (r == 2) y = squeeze(ctx, y, {0});
  ctx.set_output(0, y);
}
