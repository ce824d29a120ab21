// One-dimensional FFTs on ONNX DFT (opset 17+), shared by the opset 17 and 20 registrations (the
// DFT node's form is chosen by forms.hpp's dft()): torch.fft.fft/ifft/rfft/irfft, stft and istft. Complex values are (real, imaginary) pairs (complex_pairs.hpp).
//
// Scaling: ONNX's inverse DFT divides by n, the forward one does not (PyTorch's norm="backward");
// norm="forward" moves the 1/n to the forward transform, "ortho" puts 1/sqrt(n) on both.
// irfft builds the whole Hermitian spectrum X[k] = conj(X[n-k]) from the first n/2+1 bins and takes
// the real part of its inverse DFT: exactly PyTorch's c2r, which ignores the imaginary parts of the
// zero (and, for even n, the Nyquist) bin. Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_FFT_HPP
#define TORCH2ONNX_PACK_COMMON_FFT_HPP

#include <torch2onnx/plugin.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "complex_pairs.hpp"
#include "constants.hpp"
#include "forms.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

enum class FftKind { Forward, Inverse, RealForward, RealInverse };  // fft, ifft, rfft, irfft

// norm=None/"backward" 0, "forward" 1, "ortho" 2.
inline int fft_norm_mode(Ctx& ctx, const Value& norm) {
  if (norm.is_none()) return 0;
  std::string mode = norm.to_string();
  if (mode == "backward") return 0;
  if (mode == "forward") return 1;
  if (mode == "ortho") return 2;
  fail(ctx.kind() + ": argument 'norm' is '" + mode + "' (backward, forward or ortho)");
}

// The factor the ONNX result is multiplied by for `norm` of a transform of length n: 1/n or
// 1/sqrt(n) forward, n or sqrt(n) for an inverse (ONNX already divided by n). n_value: n as a 0-d
// int64 tensor when n is not known at export (n < 0).
// PyTorch's real-input transforms give the zero bin, and for an even length n the Nyquist bin n/2,
// an imaginary part of exactly +0. ONNX Runtime's DFT leaves rounding there (its non-power-of-2
// algorithm) or a -0, and the angle of such a bin with a negative real part flips from pi to -pi.
// Those imaginary parts are set to +0 (a Where: ONNX Runtime removes an Add of 0). `axis` is the
// frequency axis of the pairs y, of rank `pairs_rank`; bins: its size (n or n/2+1); n < 0: dynamic, left.
inline Value exact_real_bins(Ctx& ctx, const Value& y, int64_t axis, int32_t pairs_rank, int64_t n, int64_t bins,
                             t2o_dtype parts) {
  if (n < 0 || bins < 0) return y;
  std::vector<int64_t> keep((size_t)(bins * 2), 1);
  keep[1] = 0;
  if (n % 2 == 0 && n / 2 < bins) keep[(size_t)(n / 2 * 2 + 1)] = 0;
  std::vector<int64_t> dims{bins};
  for (int64_t i = axis + 1; i < pairs_rank - 1; ++i) dims.push_back(1);
  dims.push_back(2);
  return ctx.op("Where", {constant_of(ctx, T2O_DTYPE_BOOL, dims, {}, keep), y, ctx.scalar(parts, 0.0)});
}

inline Value fft_scaled(Ctx& ctx, const Value& y, int mode, bool inverse, int64_t n, const Value& n_value,
                        t2o_dtype parts) {
  const bool scale_up = inverse;
  if (mode == 0) return y;
  if (n >= 0) {
    double f = mode == 2 ? std::sqrt((double)n) : (double)n;
    return ctx.op("Mul", {y, ctx.scalar(parts, scale_up ? f : 1.0 / f)});
  }
  Value f = ctx.op("Cast", {n_value}, {Attr::i("to", parts)});
  if (mode == 2) f = ctx.op("Sqrt", {f});
  return ctx.op(scale_up ? "Mul" : "Div", {y, f});
}

// The real signal of length n whose onesided spectrum (pairs, TorchScript rank `rank`) runs along
// `axis` with m bins (trimmed or zero-padded to n/2+1 first); the inverse DFT's 1/n is applied.
inline Value hermitian_inverse(Ctx& ctx, const Value& spectrum, int32_t rank, int64_t axis, int64_t m, int64_t n,
                               t2o_dtype parts) {
  const int64_t half = n / 2 + 1;
  Value x = spectrum;
  if (m > half) {
    x = slice(ctx, x, {axis}, {0}, {half});
  } else if (m < half) {
    std::vector<int64_t> pads((size_t)(2 * (rank + 1)), 0);
    pads[(size_t)(rank + 1 + axis)] = half - m;
    x = pad_constant(ctx, x, parts, pads);
  }
  if (n > half) {
    // bins half..n-1 are conj(X[n-half]), ..., conj(X[1]): a reversed slice with the imaginary part negated
    Value tail = slice(ctx, x, {axis}, {n - half}, {0}, {-1});
    tail = ctx.op("Mul", {tail, constant_of(ctx, parts, {2}, {1.0, -1.0})});
    x = ctx.op("Concat", {x, tail}, {Attr::i("axis", axis)});
  }
  Value y = dft(ctx, x, Value(), axis, /*inverse=*/true, /*onesided=*/false);
  return pair_part(ctx, y, rank, 0);
}

// aten::fft_fft / fft_ifft / fft_rfft / fft_irfft(Tensor self, int? n=None, int dim=-1, str? norm=None) -> Tensor
inline void fft_symbolic(Ctx& ctx, FftKind kind) {
  Value x = ctx.input(0), n_arg = ctx.input(1), dim_arg = ctx.input(2);
  const int mode = fft_norm_mode(ctx, ctx.input(3));
  const int32_t rank = x.rank();
  if (rank < 1) unsupported(ctx.kind() + ": input 'self' of rank " + std::to_string(rank) + " (needs a known rank >= 1)");
  if (!dim_arg.is_const()) unsupported(ctx.kind() + ": argument 'dim' is computed at run time");
  const int64_t axis = normalize_axis(ctx, dim_arg.to_int(), rank);
  if (!n_arg.is_none() && !n_arg.is_const()) unsupported(ctx.kind() + ": argument 'n' is computed at run time");
  const int64_t given_n = n_arg.is_none() ? -1 : n_arg.to_int();
  if (!n_arg.is_none() && given_n < 1) fail(ctx.kind() + ": argument 'n' is " + std::to_string(given_n) + " (must be >= 1)");
  const int64_t size = x.dim(axis);  // -1: dynamic
  const t2o_dtype out_dtype = ctx.output(0).dtype();
  const t2o_dtype parts = parts_dtype(out_dtype);
  if (!is_float_dtype(parts)) unsupported(ctx.kind() + ": output element type " + std::to_string((int)out_dtype));

  if (kind == FftKind::RealInverse) {
    if (size < 0) unsupported(ctx.kind() + ": dim " + std::to_string(axis) + " of 'self' is dynamic (needs a static size)");
    const int64_t n = given_n > 0 ? given_n : 2 * (size - 1);
    if (n < 1) fail(ctx.kind() + ": output length " + std::to_string(n) + " from " + std::to_string(size) + " bins");
    Value y = hermitian_inverse(ctx, pairs_of(ctx, x, parts), rank, axis, size, n, parts);
    return set_typed_output(ctx, 0, fft_scaled(ctx, y, mode, true, n, Value(), parts));
  }
  if (kind == FftKind::RealForward && is_complex(x.dtype()))
    fail(ctx.kind() + ": input 'self' is complex (rfft takes a real tensor)");
  // A real input enters DFT as (..., 1); a complex one as its pairs.
  Value signal = is_complex(x.dtype()) ? ctx.as_onnx(x) : unsqueeze(ctx, to_dtype(ctx, x, parts), {rank});
  const int64_t n = given_n > 0 ? given_n : size;
  Value length = given_n > 0 && given_n != size ? ctx.scalar_i64(given_n) : Value();
  const bool inverse = kind == FftKind::Inverse;
  Value y = dft(ctx, signal, length, axis, inverse, kind == FftKind::RealForward);
  if (!inverse && !is_complex(x.dtype()))
    y = exact_real_bins(ctx, y, axis, rank + 1, n, n < 0 ? -1 : kind == FftKind::RealForward ? n / 2 + 1 : n, parts);
  Value n_value = n < 0 ? dim_tensor(ctx, x, axis) : Value();
  set_typed_output(ctx, 0, fft_scaled(ctx, y, mode, inverse, n, n_value, parts));
}

// The window of an stft/istft as an ONNX tensor of n_fft values: `window` (win_length values, None:
// ones) zero-padded on both sides to n_fft as PyTorch centers it.
inline Value stft_window(Ctx& ctx, const Value& window, int64_t win_length, int64_t n_fft, t2o_dtype parts) {
  if (win_length < 1 || win_length > n_fft)
    fail(ctx.kind() + ": win_length " + std::to_string(win_length) + " is not in [1, n_fft=" + std::to_string(n_fft) + "]");
  Value w;
  if (window.is_none()) {
    w = constant_of(ctx, parts, {win_length}, std::vector<double>((size_t)win_length, 1.0));
  } else {
    if (window.rank() != 1 || window.dim(0) != win_length)
      fail(ctx.kind() + ": argument 'window' must have win_length=" + std::to_string(win_length) + " values");
    if (is_complex(window.dtype())) unsupported(ctx.kind() + ": a complex 'window'");
    w = to_dtype(ctx, window, parts);
  }
  const int64_t left = (n_fft - win_length) / 2, right = n_fft - win_length - left;
  if (left == 0 && right == 0) return w;
  return pad_constant(ctx, w, parts, {left, right});
}

// aten::stft (two overloads; arguments after `self`):
//   aten::stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None,
//              bool normalized=False, bool? onesided=None, bool? return_complex=None) -> Tensor
//   aten::stft.center(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None,
//              bool center=True, str pad_mode="reflect", bool normalized=False, bool? onesided=None,
//              bool? return_complex=None) -> Tensor
// Frame f is samples f*hop .. f*hop+n_fft-1 (a Gather; frames = 1 + (L - n_fft) / hop), times the
// window (win_length values, None: ones, zero-padded to n_fft as PyTorch centers it), then a DFT over
// each frame (onesided: n_fft/2+1 bins); normalized multiplies by n_fft^-1/2. The result,
// (batch, bins, frames, 2), is the real output of return_complex=False and the (real, imaginary)
// pairs of a complex one. torch.stft's center=True pads in Python (aten::pad reflect, converted on
// its own); the stft.center overload pads here.
inline void stft_symbolic(Ctx& ctx) {
  const bool center_overload = ctx.num_inputs() == 10;
  const int32_t normalized_at = center_overload ? 7 : 5;
  Value x = ctx.input(0);
  const int32_t rank = x.rank();
  if (rank != 1 && rank != 2) unsupported("aten::stft: input 'self' of rank " + std::to_string(rank) + " (1 or 2)");
  for (int32_t i : {1, 2, 3})
    if (!ctx.input(i).is_none() && !ctx.input(i).is_const())
      unsupported("aten::stft: argument " + std::to_string(i) + " (n_fft, hop_length or win_length) is computed at run time");
  const int64_t n_fft = ctx.input(1).to_int();
  const int64_t hop = ctx.input(2).is_none() ? n_fft / 4 : ctx.input(2).to_int();
  const int64_t win_length = ctx.input(3).is_none() ? n_fft : ctx.input(3).to_int();
  if (n_fft < 1 || hop < 1) fail("aten::stft: n_fft " + std::to_string(n_fft) + ", hop_length " + std::to_string(hop));
  const bool normalized = ctx.input(normalized_at).to_bool();
  Value onesided_arg = ctx.input(normalized_at + 1);
  const bool complex_input = is_complex(x.dtype());
  const bool onesided = onesided_arg.is_none() ? !complex_input : onesided_arg.to_bool();
  if (onesided && complex_input) fail("aten::stft: onesided=True with a complex input");
  const t2o_dtype out_dtype = ctx.output(0).dtype();
  const t2o_dtype parts = parts_dtype(out_dtype);
  if (!is_float_dtype(parts)) unsupported("aten::stft: output element type " + std::to_string((int)out_dtype));

  // (B, L, 1) for a real signal, its pairs (B, L, 2) for a complex one
  Value signal = complex_input ? ctx.as_onnx(x) : unsqueeze(ctx, to_dtype(ctx, x, parts), {rank});
  if (rank == 1) signal = unsqueeze(ctx, signal, {0});
  int64_t length = x.dim(rank - 1);
  if (center_overload && ctx.input(5).to_bool()) {
    std::string mode = ctx.input(6).to_string();
    if (mode != "reflect" && mode != "constant" && mode != "replicate")
      unsupported("aten::stft: pad_mode '" + mode + "' (reflect, constant or replicate)");
    const int64_t p = n_fft / 2;
    Value pads = ctx.const_i64({0, p, 0, 0, p, 0});
    std::vector<Value> in{signal, pads};
    if (mode == "constant") in.push_back(ctx.scalar(parts, 0.0));
    signal = ctx.op("Pad", in, {Attr::s("mode", mode == "replicate" ? "edge" : mode)});
    if (length >= 0) length += 2 * p;
  }
  // sample indices (frames, n_fft): f * hop + k
  Value indices;
  if (length >= 0) {
    if (length < n_fft) fail("aten::stft: " + std::to_string(length) + " samples for n_fft=" + std::to_string(n_fft));
    const int64_t frames = 1 + (length - n_fft) / hop;
    std::vector<int64_t> idx;
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t k = 0; k < n_fft; ++k) idx.push_back(f * hop + k);
    indices = ctx.tensor(T2O_DTYPE_INT64, {frames, n_fft}, idx.data(), idx.size() * sizeof(int64_t));
  } else {
    Value samples = dim_tensor(ctx, signal, 1);
    Value frames = ctx.op("Add", {ctx.op("Div", {ctx.op("Sub", {samples, ctx.scalar_i64(n_fft)}), ctx.scalar_i64(hop)}),
                                  ctx.scalar_i64(1)});
    Value starts = ctx.op("Mul", {ctx.op("Range", {ctx.scalar_i64(0), frames, ctx.scalar_i64(1)}), ctx.scalar_i64(hop)});
    std::vector<int64_t> offsets;
    for (int64_t k = 0; k < n_fft; ++k) offsets.push_back(k);
    indices = ctx.op("Add", {unsqueeze(ctx, starts, {1}), ctx.const_i64(offsets)});
  }
  Value framed = ctx.op("Gather", {signal, indices}, {Attr::i("axis", 1)});  // (B, frames, n_fft, 1 or 2)
  Value window = unsqueeze(ctx, stft_window(ctx, ctx.input(4), win_length, n_fft, parts), {1});  // (n_fft, 1)
  Value y = dft(ctx, ctx.op("Mul", {framed, window}), Value(), 2, /*inverse=*/false, onesided);
  if (!complex_input) y = exact_real_bins(ctx, y, 2, 4, n_fft, onesided ? n_fft / 2 + 1 : n_fft, parts);
  y = ctx.op("Transpose", {y}, {Attr::ints("perm", {0, 2, 1, 3})});
  if (normalized) y = ctx.op("Mul", {y, ctx.scalar(parts, 1.0 / std::sqrt((double)n_fft))});
  if (rank == 1) y = squeeze(ctx, y, {0});
  set_typed_output(ctx, 0, y);
}

// aten::istft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None,
//             bool center=True, bool normalized=False, bool? onesided=None, int? length=None,
//             bool return_complex=False) -> Tensor
// As PyTorch: irfft of each frame over the first n_fft/2+1 bins (norm "ortho" when normalized),
// times the window, overlap-added, divided by the overlap-added squared window, the n_fft/2 samples
// of center padding cut off, cut or zero-padded to `length`. Overlap-add is a ConvTranspose with an
// identity kernel and stride hop_length.
inline void istft_symbolic(Ctx& ctx) {
  Value z = ctx.input(0);
  if (!is_complex(z.dtype())) unsupported("aten::istft: input 'self' is not complex (PyTorch needs a complex spectrum)");
  const int32_t rank = z.rank();
  if (rank != 2 && rank != 3) unsupported("aten::istft: input 'self' of rank " + std::to_string(rank) + " (2 or 3)");
  for (int32_t i : {1, 2, 3, 8})
    if (!ctx.input(i).is_none() && !ctx.input(i).is_const())
      unsupported("aten::istft: argument " + std::to_string(i) + " (n_fft, hop_length, win_length or length) is computed at run time");
  if (ctx.input(9).to_bool()) unsupported("aten::istft: return_complex=True (a complex signal cannot be a model output)");
  const int64_t n_fft = ctx.input(1).to_int();
  const int64_t hop = ctx.input(2).is_none() ? n_fft / 4 : ctx.input(2).to_int();
  const int64_t win_length = ctx.input(3).is_none() ? n_fft : ctx.input(3).to_int();
  const bool center = ctx.input(5).to_bool(), normalized = ctx.input(6).to_bool();
  const bool has_length = !ctx.input(8).is_none();
  const int64_t length = has_length ? ctx.input(8).to_int() : 0;
  if (hop < 1) fail("aten::istft: hop_length " + std::to_string(hop) + " (must be >= 1)");
  const t2o_dtype parts = parts_dtype(z.dtype());

  Value spectrum = ctx.as_onnx(z);
  if (rank == 2) spectrum = unsqueeze(ctx, spectrum, {0});
  const int64_t bins = z.dim(rank - 2), frames = z.dim(rank - 1);
  if (bins < 0) unsupported("aten::istft: the frequency dim of 'self' is dynamic");
  // (B, n_fft, frames): each frame's signal, normalized as PyTorch's irfft with norm ortho/backward
  Value frames_signal = hermitian_inverse(ctx, spectrum, 3, 1, bins, n_fft, parts);
  frames_signal = fft_scaled(ctx, frames_signal, normalized ? 2 : 0, true, n_fft, Value(), parts);
  Value window = unsqueeze(ctx, stft_window(ctx, ctx.input(4), win_length, n_fft, parts), {0, 2});  // (1, n_fft, 1)
  frames_signal = ctx.op("Mul", {frames_signal, window});

  std::vector<double> eye((size_t)(n_fft * n_fft), 0.0);
  for (int64_t i = 0; i < n_fft; ++i) eye[(size_t)(i * n_fft + i)] = 1.0;
  Value kernel = constant_of(ctx, parts, {n_fft, 1, n_fft}, eye);
  auto overlap_add = [&](const Value& v) {
    return ctx.op("ConvTranspose", {v, kernel}, {Attr::ints("strides", {hop}), Attr::ints("kernel_shape", {n_fft})});
  };
  Value frames_count = frames >= 0 ? ctx.const_i64({frames}) : dims_tensor(ctx, spectrum, {2});
  Value envelope_shape = ctx.op("Concat", {ctx.const_i64({1, n_fft}), frames_count}, {Attr::i("axis", 0)});
  Value envelope = overlap_add(ctx.op("Expand", {ctx.op("Mul", {window, window}), envelope_shape}));
  Value y = ctx.op("Div", {overlap_add(frames_signal), envelope});  // (B, 1, n_fft + hop * (frames - 1))

  const int64_t start = center ? n_fft / 2 : 0;
  const int64_t no_end = INT64_MAX;
  int64_t end = has_length ? start + length : center && n_fft / 2 > 0 ? -(n_fft / 2) : no_end;
  int64_t missing = 0;  // samples past the overlap-added signal that `length` asks for (zeros)
  if (has_length) {
    if (frames < 0) unsupported("aten::istft: argument 'length' with a dynamic number of frames");
    const int64_t available = n_fft + hop * (frames - 1);
    if (end > available) missing = end - available, end = no_end;
  }
  if (start != 0 || end != no_end) y = slice(ctx, y, {2}, {start}, {end});
  if (missing > 0) y = pad_constant(ctx, y, parts, {0, 0, 0, 0, 0, missing});
  y = squeeze(ctx, y, rank == 2 ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{1});
  set_typed_output(ctx, 0, y);
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_FFT_HPP
