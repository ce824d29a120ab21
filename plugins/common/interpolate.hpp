// Shared by the upsample symbolics of opset9 (Upsample), opset10 (Resize with scales) and opset11
// (Resize with roi/scales/sizes): argument parsing of aten::upsample_* (both the .vec overloads
// that F.interpolate records and the per-axis-scale overloads), PyTorch's exact source-index rules,
// and the static-shape fallbacks for forms older opsets cannot express (Gather for nearest,
// MatMul with interpolation matrices for linear). Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_INTERPOLATE_HPP
#define TORCH2ONNX_PACK_COMMON_INTERPOLATE_HPP

#include <torch2onnx/plugin.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "nn_consts.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

struct Interp {
  size_t n = 0;               // spatial axes: the last n of the input
  Value x;                    // the TorchScript input
  Value out_size;             // int list (maybe holding run-time ints); invalid when not given
  std::vector<double> scales; // one per spatial axis; empty when not given (a None entry = 0)
  bool align_corners = false;
};

// upsample_<mode>Nd.vec(input, output_size?, [align_corners,] scale_factors?) or
// upsample_<mode>Nd(self, output_size, [align_corners,] scales_1?, ..., scales_n?).
inline Interp parse_interp(Ctx& ctx, size_t n, bool has_align) {
  Interp I;
  I.n = n;
  I.x = ctx.input(0);
  int32_t at = 1;
  Value size = ctx.input(at++);
  if (!size.is_none()) I.out_size = size;
  if (has_align) {
    Value a = ctx.input(at++);
    if (!a.is_none()) I.align_corners = a.to_bool();
  }
  std::vector<Value> rest;
  for (int32_t i = at; i < ctx.num_inputs(); ++i) rest.push_back(ctx.input(i));
  bool any = false;
  if (rest.size() == 1 && rest[0].is_list()) {  // .vec: float[]?
    if (!rest[0].is_const()) unsupported(ctx.kind() + ": scale_factors computed at run time");
    I.scales = rest[0].to_floats();
    any = true;
  } else {
    std::vector<double> s;
    for (const Value& v : rest) {
      if (v.is_none()) {
        s.push_back(0.0);
        continue;
      }
      if (!v.is_const()) unsupported(ctx.kind() + ": scales computed at run time");
      s.push_back(v.to_float());
      any = true;
    }
    if (any) I.scales = s;
  }
  if (any && I.scales.size() == 1 && n > 1) I.scales.assign(n, I.scales[0]);
  if (any && I.scales.size() != n)
    fail(ctx.kind() + ": expected " + std::to_string(n) + " scale factors, got " + std::to_string(I.scales.size()));
  if (!I.out_size.valid() && !any) fail(ctx.kind() + ": neither output_size nor scale_factors given");
  int32_t r = I.x.rank();
  if (r >= 0 && r != (int32_t)n + 2)
    fail(ctx.kind() + ": expected a " + std::to_string(n + 2) + "-D input, got rank " + std::to_string(r));
  return I;
}

inline int64_t spatial_axis(const Interp& I, size_t i) { return 2 + (int64_t)i; }

// Static input lengths of the spatial axes (-1 where dynamic).
inline std::vector<int64_t> in_lengths(const Interp& I) {
  std::vector<int64_t> v;
  for (size_t i = 0; i < I.n; ++i) v.push_back(I.x.dim((int32_t)spatial_axis(I, i)));
  return v;
}

// Output lengths when known at export time (else empty): output_size constants, or
// floor(in * scale) on static dims, as PyTorch computes them.
inline std::vector<int64_t> static_out_lengths(const Interp& I) {
  std::vector<int64_t> in = in_lengths(I), out;
  if (I.out_size.valid()) {
    if (!all_const(I.out_size)) return {};
    out = I.out_size.to_ints();
    if (out.size() == 1 && I.n > 1) out.assign(I.n, out[0]);
    return out.size() == I.n ? out : std::vector<int64_t>{};
  }
  for (size_t i = 0; i < I.n; ++i) {
    if (in[i] < 0) return {};
    out.push_back((int64_t)std::floor((double)in[i] * I.scales[i]));
  }
  return out;
}

// The scale PyTorch maps output to input coordinates with (compute_scales_value /
// area_pixel_compute_scale), in float as its CPU kernels compute it.
inline float torch_coord_scale(int64_t in, int64_t out, double scale, bool align_corners) {
  if (align_corners) return out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f;
  return scale > 0 ? (float)(1.0 / scale) : (float)in / (float)out;
}

// PyTorch's nearest source index of every output index on one axis (nearest_idx /
// nearest_neighbor_exact_compute_source_index).
inline std::vector<int64_t> nearest_indices(int64_t in, int64_t out, double scale, bool exact) {
  std::vector<int64_t> idx;
  float s = torch_coord_scale(in, out, scale, false);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i;
    if (!exact && out == in) i = o;
    else if (!exact && out == 2 * in) i = o >> 1;
    else i = (int64_t)std::floor(exact ? ((float)o + 0.5f) * s : (float)o * s);
    idx.push_back(i < in - 1 ? i : in - 1);
  }
  return idx;
}

// PyTorch's linear interpolation matrix (out x in) of one axis (upsample_linear/bilinear kernels).
inline std::vector<double> linear_matrix(int64_t in, int64_t out, double scale, bool align_corners) {
  std::vector<double> w((size_t)(out * in), 0.0);
  float s = torch_coord_scale(in, out, scale, align_corners);
  for (int64_t o = 0; o < out; ++o) {
    float src = align_corners ? s * (float)o : s * ((float)o + 0.5f) - 0.5f;
    if (!align_corners && src < 0) src = 0;
    int64_t i0 = (int64_t)src;
    int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
    float l1 = src - (float)i0, l0 = 1.0f - l1;
    w[(size_t)(o * in + i0)] += l0;
    w[(size_t)(o * in + i1)] += l1;
  }
  return w;
}

inline double scale_of(const Interp& I, size_t i) { return I.scales.empty() ? 0.0 : I.scales[i]; }

// Nearest (or nearest-exact) resampling as one Gather per resized axis with PyTorch's own index
// tables: exact at every opset, needs static spatial dims (invalid Value otherwise).
inline Value nearest_by_gather(Ctx& ctx, const Interp& I, bool exact) {
  std::vector<int64_t> in = in_lengths(I), out = static_out_lengths(I);
  if (out.empty()) return Value();
  for (auto d : in)
    if (d < 0) return Value();
  Value y = ctx.as_onnx(I.x);
  for (size_t i = 0; i < I.n; ++i) {
    if (out[i] == in[i] && !exact) continue;
    y = ctx.op("Gather", {y, ctx.const_i64(nearest_indices(in[i], out[i], scale_of(I, i), exact))},
               {Attr::i("axis", spatial_axis(I, i))});
  }
  return y;
}

// Linear (1-D) / bilinear (2-D) / trilinear (3-D) resampling as MatMul with PyTorch's
// interpolation matrices, one spatial axis at a time (the depth axis of 3-D swapped to the last
// place and back): exact at every opset, needs static spatial dims (invalid Value otherwise).
inline Value linear_by_matmul(Ctx& ctx, const Interp& I) {
  std::vector<int64_t> in = in_lengths(I), out = static_out_lengths(I);
  if (out.empty() || I.n > 3) return Value();
  for (auto d : in)
    if (d < 0) return Value();
  t2o_dtype dt = I.x.dtype();
  Value y = ctx.as_onnx(I.x);
  const int64_t rank = 2 + (int64_t)I.n;
  for (size_t i = 0; i < I.n; ++i) {
    std::vector<double> w = linear_matrix(in[i], out[i], scale_of(I, i), I.align_corners);
    bool last = i + 1 == I.n;
    std::vector<int64_t> swap;  // the axis exchanged with the last one (self-inverse)
    if (i + 2 < I.n) {
      for (int64_t a = 0; a < rank; ++a) swap.push_back(a);
      std::swap(swap[(size_t)spatial_axis(I, i)], swap.back());
      y = ctx.op("Transpose", {y}, {Attr::ints("perm", swap)});
      last = true;
    }
    if (last) {  // y (..., in) @ W^T (in, out)
      std::vector<double> wt((size_t)(in[i] * out[i]));
      for (int64_t o = 0; o < out[i]; ++o)
        for (int64_t k = 0; k < in[i]; ++k) wt[(size_t)(k * out[i] + o)] = w[(size_t)(o * in[i] + k)];
      y = ctx.op("MatMul", {y, float_table(ctx, {in[i], out[i]}, wt, dt)});
      if (!swap.empty()) y = ctx.op("Transpose", {y}, {Attr::ints("perm", swap)});
    } else {  // W (out, in) @ y (..., in, L)
      y = ctx.op("MatMul", {float_table(ctx, {out[i], in[i]}, w, dt), y});
    }
  }
  return y;
}


// Nearest resampling before opset 11, where Upsample (9) / Resize (10) map output index o to
// floor(o / scale) only when upsampling (ONNX Runtime rounds up when downsampling) and make the
// output length from a float scale: used when every scale is >= 1 and exact (given scale factors,
// or output sizes that are whole multiples of static input sizes). Otherwise PyTorch's index
// tables are applied with Gather (static spatial dims), or the op needs opset 11.
inline Value nearest_before_11(Ctx& ctx, const Interp& I, const std::string& op_type) {
  std::vector<int64_t> in = in_lengths(I), out = static_out_lengths(I);
  std::vector<float> scales{1.0f, 1.0f};
  bool ok = true;
  for (size_t i = 0; i < I.n && ok; ++i) {
    if (!I.out_size.valid()) {
      ok = I.scales[i] >= 1.0;
      scales.push_back((float)I.scales[i]);
    } else {
      ok = !out.empty() && in[i] > 0 && out[i] >= in[i] && out[i] % in[i] == 0;
      // With per-axis scales (non-.vec overload) PyTorch maps with those scales: they must agree.
      if (ok && scale_of(I, i) > 0) ok = scale_of(I, i) == (double)(out[i] / in[i]);
      if (ok) scales.push_back((float)(out[i] / in[i]));
    }
  }
  if (ok) return ctx.op(op_type, {I.x, ctx.const_f32(scales)}, {Attr::s("mode", "nearest")});
  Value y = nearest_by_gather(ctx, I, false);
  if (!y.valid())
    unsupported(ctx.kind() + ": nearest resampling with these sizes on dynamic spatial dims needs opset >= 11");
  return y;
}
}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_INTERPOLATE_HPP
