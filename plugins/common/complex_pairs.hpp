// Complex tensors as (real, imaginary) pairs. ONNX has no complex type: the host represents a complex
// TorchScript tensor of shape S as a real tensor of shape S + [2] (its parts' dtype: float for
// complex64, double for complex128), as torch.view_as_real gives and as DFT produces. The value
// handles still describe the TorchScript tensor (dtype COMPLEX64/128, rank and dims of S), so a
// symbolic knows the ONNX tensor has one more axis, at index rank(). Only symbolics registered with
// T2O_SYMBOLIC_COMPLEX_PAIRS (T2O_PAIRS_SYMBOLIC below) are given complex inputs; the host refuses
// the others, and refuses complex graph outputs. Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_COMPLEX_PAIRS_HPP
#define TORCH2ONNX_PACK_COMMON_COMPLEX_PAIRS_HPP

#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <vector>

#include "forms.hpp"
#include "util.hpp"

// A symbolic of the default domain that takes complex inputs as pairs.
#define T2O_PAIRS_SYMBOLIC(OP, SINCE) T2O_SYMBOLIC_EX(OP, "", SINCE, T2O_SYMBOLIC_COMPLEX_PAIRS)

namespace t2o {
namespace pack {

inline bool is_complex(t2o_dtype d) { return d == T2O_DTYPE_COMPLEX64 || d == T2O_DTYPE_COMPLEX128; }

// The dtype of a complex dtype's parts (float, double); other dtypes unchanged.
inline t2o_dtype parts_dtype(t2o_dtype d) {
  if (d == T2O_DTYPE_COMPLEX64) return T2O_DTYPE_FLOAT;
  if (d == T2O_DTYPE_COMPLEX128) return T2O_DTYPE_DOUBLE;
  return d;
}

// x as pairs of `parts` dtype: a complex x as it is, a real x cast with a zero imaginary part.
inline Value pairs_of(Ctx& ctx, const Value& x, t2o_dtype parts) {
  int32_t rank = x.rank();
  if (is_complex(x.dtype())) return ctx.as_onnx(x);
  known_rank(ctx, x);
  Value real = ctx.as_onnx(x);
  if (x.dtype() != parts) real = ctx.op("Cast", {real}, {Attr::i("to", parts)});
  std::vector<int64_t> pads((size_t)(2 * (rank + 1)), 0);
  pads.back() = 1;  // the end of the new last axis: a zero imaginary part
  return pad_constant(ctx, unsqueeze(ctx, real, {rank}), parts, pads);
}

// Part `which` (0 real, 1 imaginary) of pairs p whose TorchScript rank is `rank`.
inline Value pair_part(Ctx& ctx, const Value& p, int32_t rank, int64_t which) {
  return ctx.op("Gather", {p, ctx.scalar_i64(which)}, {Attr::i("axis", rank)});
}

// Pairs from real and imaginary parts of TorchScript rank `rank`.
inline Value make_pairs(Ctx& ctx, const Value& re, const Value& im, int32_t rank) {
  return ctx.op("Concat", {unsqueeze(ctx, re, {rank}), unsqueeze(ctx, im, {rank})}, {Attr::i("axis", rank)});
}

// Binds v as TorchScript output i, typed as that output (a complex output keeps its complex dtype and
// TorchScript dims, so pair-aware consumers read it as pairs).
inline void set_typed_output(Ctx& ctx, int32_t i, const Value& v) {
  Value out = ctx.output(i);
  int32_t rank = out.rank();
  ctx.set_output(i, typed(ctx, v, out.dtype(), rank, rank >= 0 ? out.dims() : std::vector<int64_t>{}));
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_COMPLEX_PAIRS_HPP
