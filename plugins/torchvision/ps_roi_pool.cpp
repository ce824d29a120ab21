// torchvision::ps_roi_pool (position-sensitive RoI pooling) -> the mean of each integer bin, read
// from an integral image: output channel c, bin (i, j) of roi k averages input channel
// (c * ph + i) * pw + j of image rois[k, 0] over rows [hs, he) and columns [ws, we).
//
// ONNX has no average RoI pooling with roi_pool's integer bins (MaxRoiPool is max only; RoiAlign
// samples bilinearly), so the bins are computed as torchvision's kernel does them and summed from
// an integral image S (CumSum over H and W, padded with a leading zero row and column):
//   sum = S[he, we] - S[hs, we] - S[he, ws] + S[hs, ws], read with one Gather per corner from the
//   flattened S at ((b * C + c_in) * (H+1) + y) * (W+1) + x.
// S is accumulated in float64, so the differences of large prefix sums lose nothing a float32
// kernel would keep. torchvision's bin rule (float arithmetic of the input's dtype):
//   roi corners = round(coordinate * spatial_scale), half away from zero;
//   roi size = max(end - start, 1); bin = size / pooled;
//   hs = floor(i * bin) + start, he = ceil((i + 1) * bin) + start, both clamped to [0, H - 1]
//   (the kernel clamps to H - 1, so the last row and column are never read; kept as is);
//   an empty bin (he <= hs or we <= ws) is 0.
// CumSum needs opset 11. The channel-mapping output (for the backward pass) is not produced; a
// model that reads it is refused by the host ("did not bind output 1").
#include <torch2onnx/plugin.hpp>

#include "common/constants.hpp"
#include "common/forms.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// round(v) half away from zero, as C's round(): sign(v) * (floor(|v|) + (|v| - floor(|v|) >= 0.5)).
// (floor(|v| + 0.5) would round 0.49999997 up: the sum rounds to 1 in float32.)
Value round_half_away(Ctx& ctx, const Value& v, t2o_dtype dt) {
  Value a = ctx.op("Abs", {v});
  Value whole = ctx.op("Floor", {a});
  Value below_half = ctx.op("Less", {ctx.op("Sub", {a, whole}), ctx.scalar(dt, 0.5)});
  Value up = ctx.op("Cast", {ctx.op("Not", {below_half})}, {Attr::i("to", dt)});
  return ctx.op("Mul", {ctx.op("Sign", {v}), ctx.op("Add", {whole, up})});
}

// Column `k` of [K, 4] corners as [K, 1].
Value column(Ctx& ctx, const Value& corners, int64_t k) { return slice(ctx, corners, {1}, {k}, {k + 1}); }

struct Edges {
  Value start, end;  // [K, pooled] in the input's dtype (integer values)
};

// Bin edges along one axis of `size` input pixels (a dtype scalar holding size - 1 for the clamp).
Edges bin_edges(Ctx& ctx, const Value& roi_start, const Value& roi_end, int64_t pooled, const Value& last, t2o_dtype dt) {
  Value extent = ctx.op("Max", {ctx.op("Sub", {roi_end, roi_start}), ctx.scalar(dt, 1.0)});
  Value bin = ctx.op("Div", {extent, ctx.scalar(dt, (double)pooled)});  // [K, 1]
  std::vector<double> lo, hi;
  for (int64_t i = 0; i < pooled; ++i) lo.push_back((double)i), hi.push_back((double)(i + 1));
  Value lo_t = constant_of(ctx, dt, {1, pooled}, lo), hi_t = constant_of(ctx, dt, {1, pooled}, hi);
  auto clamp = [&](const Value& e) {
    return ctx.op("Min", {ctx.op("Max", {ctx.op("Add", {e, roi_start}), ctx.scalar(dt, 0.0)}), last});
  };
  Edges out;
  out.start = clamp(ctx.op("Floor", {ctx.op("Mul", {lo_t, bin})}));
  out.end = clamp(ctx.op("Ceil", {ctx.op("Mul", {hi_t, bin})}));
  return out;
}

Value to_i64(Ctx& ctx, const Value& v) { return ctx.op("Cast", {v}, {Attr::i("to", T2O_DTYPE_INT64)}); }

}  // namespace

// torchvision::ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, int pooled_height,
//                          int pooled_width) -> (Tensor, Tensor)
T2O_SYMBOLIC("torchvision::ps_roi_pool", 11) {
  Value input = ctx.input(0), rois = ctx.input(1);
  for (int i = 2; i <= 4; ++i)
    if (!ctx.input(i).is_const())
      unsupported("torchvision::ps_roi_pool: argument " + std::to_string(i) + " is computed at run time");
  const double spatial_scale = ctx.input(2).to_float();
  const int64_t ph = ctx.input(3).to_int(), pw = ctx.input(4).to_int();
  const t2o_dtype dt = input.dtype();
  if (dt != T2O_DTYPE_FLOAT && dt != T2O_DTYPE_DOUBLE)
    unsupported("torchvision::ps_roi_pool: argument 'input' must be float32 or float64 (as torchvision's kernel)");
  if (rois.dtype() != dt) unsupported("torchvision::ps_roi_pool: arguments 'input' and 'rois' of different dtypes");
  if (rois.rank() != 2 || rois.dim(1) != 5)
    unsupported("torchvision::ps_roi_pool: argument 'rois' must be [K, 5] (batch index, x1, y1, x2, y2)");
  if (input.rank() != 4) unsupported("torchvision::ps_roi_pool: argument 'input' must be [N, C, H, W]");
  const int64_t channels = input.dim(1), bins = ph * pw;
  if (channels < 0) unsupported("torchvision::ps_roi_pool: the input's channel count is not fixed");
  if (bins <= 0 || channels % bins != 0)
    fail("torchvision::ps_roi_pool: input channels " + std::to_string(channels) + " not divisible by " +
         std::to_string(ph) + "*" + std::to_string(pw));
  const int64_t out_channels = channels / bins;

  // Integral image, float64, [N, C, H+1, W+1].
  Value x64 = dt == T2O_DTYPE_DOUBLE ? input : ctx.op("Cast", {input}, {Attr::i("to", T2O_DTYPE_DOUBLE)});
  Value sums = ctx.op("CumSum", {ctx.op("CumSum", {x64, ctx.scalar_i64(2)}), ctx.scalar_i64(3)});
  sums = pad_constant(ctx, sums, T2O_DTYPE_DOUBLE, {0, 0, 1, 1, 0, 0, 0, 0});
  Value flat = ctx.op("Reshape", {sums, ctx.const_i64({-1})});

  // Bins, in the input's dtype as the kernel computes them.
  Value shape = ctx.op("Shape", {input});
  auto last_index = [&](int64_t axis) {
    Value size = ctx.op("Cast", {ctx.op("Gather", {shape, ctx.scalar_i64(axis)}, {Attr::i("axis", 0)})},
                        {Attr::i("to", dt)});
    return ctx.op("Sub", {size, ctx.scalar(dt, 1.0)});
  };
  Value corners = round_half_away(ctx, ctx.op("Mul", {slice(ctx, rois, {1}, {1}, {5}), ctx.scalar(dt, spatial_scale)}), dt);
  Edges rows = bin_edges(ctx, column(ctx, corners, 1), column(ctx, corners, 3), ph, last_index(2), dt);  // [K, ph]
  Edges cols = bin_edges(ctx, column(ctx, corners, 0), column(ctx, corners, 2), pw, last_index(3), dt);  // [K, pw]

  // Flat index of S[b, c_in, y, x] for every roi, output channel and bin: [K, C_out, ph, pw].
  Value batch = to_i64(ctx, ctx.op("Gather", {rois, ctx.const_i64({0})}, {Attr::i("axis", 1)}));  // [K, 1]
  batch = unsqueeze(ctx, batch, {2, 3});                                                            // [K, 1, 1, 1]
  std::vector<int64_t> channel_in;
  for (int64_t c = 0; c < channels; ++c) channel_in.push_back(c);
  Value c_in = ctx.tensor(T2O_DTYPE_INT64, {1, out_channels, ph, pw}, channel_in.data(), channel_in.size() * sizeof(int64_t));
  Value sums_shape = ctx.op("Shape", {sums});
  Value height1 = ctx.op("Gather", {sums_shape, ctx.scalar_i64(2)}, {Attr::i("axis", 0)});
  Value width1 = ctx.op("Gather", {sums_shape, ctx.scalar_i64(3)}, {Attr::i("axis", 0)});
  Value plane = ctx.op("Mul", {ctx.op("Add", {ctx.op("Mul", {batch, ctx.scalar_i64(channels)}), c_in}), height1});
  auto row_index = [&](const Value& y) { return unsqueeze(ctx, to_i64(ctx, y), {1, 3}); };  // [K, 1, ph, 1]
  auto col_index = [&](const Value& x) { return unsqueeze(ctx, to_i64(ctx, x), {1, 2}); };  // [K, 1, 1, pw]
  auto corner = [&](const Value& y, const Value& x) {
    Value index = ctx.op("Add", {ctx.op("Mul", {ctx.op("Add", {plane, row_index(y)}), width1}), col_index(x)});
    return ctx.op("Gather", {flat, index}, {Attr::i("axis", 0)});
  };
  Value total = ctx.op("Add", {ctx.op("Sub", {ctx.op("Sub", {corner(rows.end, cols.end), corner(rows.start, cols.end)}),
                                              corner(rows.end, cols.start)}),
                               corner(rows.start, cols.start)});

  Value height = ctx.op("Sub", {rows.end, rows.start}), width = ctx.op("Sub", {cols.end, cols.start});
  Value area = ctx.op("Mul", {unsqueeze(ctx, height, {1, 3}), unsqueeze(ctx, width, {1, 2})});  // [K, 1, ph, pw]
  Value nonempty = ctx.op("Greater", {area, ctx.scalar(dt, 0.0)});  // both extents are >= 0 after the clamp
  Value mean = ctx.op("Div", {total, ctx.op("Cast", {area}, {Attr::i("to", T2O_DTYPE_DOUBLE)})});
  Value pooled = ctx.op("Where", {nonempty, mean, ctx.scalar(T2O_DTYPE_DOUBLE, 0.0)});
  ctx.set_output(0, dt == T2O_DTYPE_DOUBLE ? pooled : ctx.op("Cast", {pooled}, {Attr::i("to", dt)}));
}
