// aten::group_norm's arguments and its per-channel affine step, shared by the opset 9/18/21 forms.
// group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True) -> Tensor
#ifndef TORCH2ONNX_PACK_COMMON_GROUP_NORM_HPP
#define TORCH2ONNX_PACK_COMMON_GROUP_NORM_HPP

#include <torch2onnx/plugin.hpp>

#include <string>
#include <vector>

#include "forms.hpp"
#include "util.hpp"

namespace t2o {
namespace pack {

struct GroupNormArgs {
  Value x, weight, bias;  // weight/bias: invalid when None
  int64_t groups;
  double eps;
  int32_t rank;
  t2o_dtype dtype;
};

// Reads the arguments; refuses an unknown rank or one below 2, and (float_only) non-float inputs.
inline GroupNormArgs group_norm_args(Ctx& ctx, bool float_only) {
  GroupNormArgs a{ctx.input(0), opt_input(ctx, 2), opt_input(ctx, 3), ctx.input(1).to_int(), ctx.input(4).to_float(),
                  0, T2O_DTYPE_UNDEFINED};
  a.rank = a.x.rank();
  if (a.rank < 2) unsupported("aten::group_norm: input rank " + std::to_string(a.rank) + " (need a known rank >= 2)");
  a.dtype = a.x.dtype();
  if (float_only && !is_float_dtype(a.dtype))
    unsupported("aten::group_norm: element type " + std::to_string((int)a.dtype) + " (float types only)");
  return a;
}

// y * weight + bias with the (C,) weight and bias broadcast as (C, 1, ..., 1).
inline Value group_norm_affine(Ctx& ctx, Value y, const GroupNormArgs& a) {
  std::vector<int64_t> tail;  // axes after C
  for (int32_t i = 1; i < a.rank - 1; ++i) tail.push_back(i);
  auto per_channel = [&](const Value& v) { return tail.empty() ? v : unsqueeze(ctx, v, tail); };
  if (a.weight.valid()) y = ctx.op("Mul", {y, per_channel(a.weight)});
  if (a.bias.valid()) y = ctx.op("Add", {y, per_channel(a.bias)});
  return y;
}

}  // namespace pack
}  // namespace t2o

#endif
