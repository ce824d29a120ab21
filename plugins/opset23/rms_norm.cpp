// RMSNormalization (opset 23) for aten::rms_norm (PyTorch 2.4+: nn.RMSNorm, F.rms_norm) and for
// t2o::rms_norm, which the core's pattern pass (core/src/prepare/rms_norm_pattern.cpp) makes from the
// exact RMSNorm pattern, x * rsqrt(mean(x^2, last k dims, keepdim) + eps) * w with float32 statistics,
// only when this symbolic exists at the target (below 23 the pattern's ops convert one by one, and
// aten::rms_norm decomposes into the same ops: opset9/rms_norm.cpp).
#include <torch2onnx/plugin.hpp>

#include "common/rms_norm.hpp"

using namespace t2o;
using namespace t2o::pack;

// t2o::rms_norm(Tensor x, Tensor? weight, float eps, int axis) -> Tensor
//   axis: the first normalized dim, negative (-k for the last k dims)
T2O_SYMBOLIC("t2o::rms_norm", 23) {
  Value x = ctx.input(0), weight = ctx.input(1);
  const double eps = ctx.input(2).to_float();
  const int64_t axis = ctx.input(3).to_int();
  const int32_t rank = x.rank();
  if (rank < 0 || axis >= 0 || -axis > rank) fail("t2o::rms_norm: axis " + std::to_string(axis) + " for rank " + std::to_string(rank));
  ctx.set_output(0, rms_normalization(ctx, x, weight, -axis, eps));
}

// aten::rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None)
// RMSNormalization computes the statistics in float32 (stash_type 1): exact for float32 and the
// half types, which PyTorch upcasts to float; float64 keeps the decomposition (PyTorch's statistics
// are in double). So does a weight of another dtype than the input (PyTorch promotes the product),
// and no weight with dynamic normalized dims (the Scale input needs a shape).
T2O_SYMBOLIC("aten::rms_norm", 23) {
  RmsNormArgs a = rms_norm_args(ctx);
  bool native = a.dt != T2O_DTYPE_DOUBLE && (!a.weight.valid() || a.weight.dtype() == a.dt);
  for (int32_t i = (int32_t)(a.x.rank() - a.k); native && !a.weight.valid() && i < a.x.rank(); ++i)
    native = a.x.dim(i) >= 0;
  ctx.set_output(0, native ? rms_normalization(ctx, a.x, a.weight, a.k, a.eps) : rms_norm_decomposed(ctx, a));
}
