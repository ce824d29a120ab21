// aten::native_group_norm (core ATen IR, as torch.export's run_decompositions() leaves GroupNorm):
// group_norm's three outputs, decomposed over the input viewed as (N, group, -1) with the biased
// variance, as PyTorch computes them:
//   out  = ((x - mean) * rstd) reshaped back to x's shape, then weight and bias per channel
//   mean = ReduceMean over each group, (N, group)
//   rstd = 1 / sqrt(var + eps), (N, group)
// so mean and rstd are exact results, not refused. N, C and HxW are not read: the reshapes take
// them from the input (they may be symbolic sizes of a dynamic program).
//
// native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW,
//                   int group, float eps) -> (Tensor, Tensor, Tensor)
#include <torch2onnx/plugin.hpp>

#include <string>

#include "common/group_norm.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::native_group_norm", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x, "input", 2);
  if (!ctx.input(6).is_const()) unsupported("aten::native_group_norm: argument 'group' computed at run time");
  if (!ctx.input(7).is_const()) unsupported("aten::native_group_norm: argument 'eps' computed at run time");
  GroupNormArgs a{x, Value(), Value(), ctx.input(6).to_int(), ctx.input(7).to_float(), (int32_t)r, x.dtype()};
  if (!is_float_dtype(a.dtype))
    unsupported("aten::native_group_norm: element type " + std::to_string((int)a.dtype) + " (float types only)");
  if (a.groups <= 0) fail("aten::native_group_norm: group " + std::to_string(a.groups));
  Value w = opt_input(ctx, 1), b = opt_input(ctx, 2);
  if (w.valid()) a.weight = to_dtype(ctx, w, a.dtype);
  if (b.valid()) a.bias = to_dtype(ctx, b, a.dtype);

  Value grouped = ctx.op("Reshape", {ctx.as_onnx(x), ctx.const_i64({0, a.groups, -1})});
  Value mean = reduce(ctx, "ReduceMean", grouped, {2}, true);
  Value centered = ctx.op("Sub", {grouped, mean});
  Value var = reduce(ctx, "ReduceMean", ctx.op("Mul", {centered, centered}), {2}, true);
  Value rstd = ctx.op("Reciprocal", {ctx.op("Sqrt", {ctx.op("Add", {var, ctx.scalar(a.dtype, a.eps)})})});
  Value y = ctx.op("Reshape", {ctx.op("Mul", {centered, rstd}), ctx.op("Shape", {x})});
  ctx.set_output(0, group_norm_affine(ctx, y, a));
  ctx.set_output(1, squeeze(ctx, mean, {2}));
  ctx.set_output(2, squeeze(ctx, rstd, {2}));
}
