// t2o::rms_norm -> RMSNormalization (opset 23). The core's pattern pass (core/src/prepare/rms_norm_pattern.cpp)
// makes this node from the exact RMSNorm pattern, x * rsqrt(mean(x^2, last k dims, keepdim) + eps) * w
// with float32 statistics, only when this symbolic exists at the target; below 23 the pattern's ops
// convert one by one.
#include <torch2onnx/plugin.hpp>

#include "common/constants.hpp"
#include "common/util.hpp"

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
  if (weight.is_none()) {
    std::vector<int64_t> normalized;
    for (int32_t i = rank + (int32_t)axis; i < rank; ++i) normalized.push_back(x.dim(i));
    for (int64_t d : normalized)
      if (d < 0) unsupported("t2o::rms_norm: no weight and a dynamic normalized dim (the scale needs a static shape)");
    int64_t count = 1;
    for (int64_t d : normalized) count *= d;
    weight = constant_of(ctx, x.dtype(), normalized, std::vector<double>((size_t)count, 1.0));
  }
  ctx.set_output(0, ctx.op("RMSNormalization", {x, weight},
                           {Attr::i("axis", axis), Attr::f("epsilon", eps), Attr::i("stash_type", T2O_DTYPE_FLOAT)}));
}
