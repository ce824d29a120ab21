// aten::_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) (PyTorch 2.5+, what
// scaled_dot_product_attention's math kernel calls): softmax, with 0 instead of NaN in every row
// (along dim) whose inputs are all -inf. Softmax, then Where over the rows (common/sdpa.hpp).
#include <torch2onnx/plugin.hpp>

#include "common/sdpa.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::_safe_softmax", 9) {
  Value x = ctx.input(0);
  const int64_t r = known_rank(ctx, x);
  const t2o_dtype dt = output_dtype(ctx, 0, x.dtype());  // the dtype argument
  if (!is_float_dtype(dt) || !is_float_dtype(x.dtype())) fail("aten::_safe_softmax: expects floating-point values");
  Value in = ctx.as_onnx(x);
  const int64_t rank = r == 0 ? 1 : r;  // a 0-d input as one element: 1, or 0 when it is -inf
  const int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  if (r == 0) in = typed(ctx, unsqueeze(ctx, in, {0}), x.dtype(), 1, {1});
  Value p = softmax(ctx, "Softmax", cast_to(ctx, in, dt), axis, rank);
  // The -inf test is on the input as given (PyTorch's self.eq(-inf)), before any cast to dtype.
  Value y = zero_neg_inf_rows(ctx, in, x.dtype(), p, dt, axis);
  ctx.set_output(0, r == 0 ? squeeze(ctx, y, {0}) : y);
}
