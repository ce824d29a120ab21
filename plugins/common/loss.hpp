// Loss reductions shared by the loss symbolics (opset9/losses.cpp, opset9/nll_loss.cpp): PyTorch's
// `reduction` argument is an int (0 none, 1 mean, 2 sum). Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_LOSS_HPP
#define TORCH2ONNX_PACK_COMMON_LOSS_HPP

#include <torch2onnx/plugin.hpp>

#include <string>

#include "forms.hpp"
#include "util.hpp"

namespace t2o {
namespace pack {

enum LossReduction : int64_t { kReduceNone = 0, kReduceMean = 1, kReduceSum = 2 };

// The constant `reduction` argument, checked.
inline int64_t loss_reduction(Ctx& ctx, const Value& v) {
  if (!v.is_const()) unsupported(ctx.kind() + ": argument 'reduction' must be constant");
  int64_t r = v.to_int();
  if (r < 0 || r > 2) fail(ctx.kind() + ": argument 'reduction'=" + std::to_string(r) + " (0 none, 1 mean, 2 sum)");
  return r;
}

// PyTorch's apply_loss_reduction: the element-wise loss itself, its mean or its sum (0-d).
inline Value apply_loss_reduction(Ctx& ctx, const Value& loss, int64_t reduction, int64_t rank) {
  if (reduction == kReduceNone || rank == 0) return loss;
  return reduce(ctx, reduction == kReduceMean ? "ReduceMean" : "ReduceSum", loss, {}, false);
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_LOSS_HPP
