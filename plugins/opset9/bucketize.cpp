// aten::bucketize(self, boundaries, out_int32=False, right=False): the number of boundaries
// below x (right=False: boundaries[i-1] < x <= boundaries[i]) or at most x (right=True), counted
// by comparing x[..., None] with the 1-D sorted boundaries and summing over the new last axis.
#include <torch2onnx/plugin.hpp>

#include "common/promote.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::bucketize", 9) {
  Value x = ctx.input(0), bounds = ctx.input(1);
  if (bounds.rank() != 1) unsupported("aten::bucketize: boundaries must be 1-D");
  t2o_dtype dt = result_type({x, bounds});
  // Less in ONNX Runtime: float, double, int32, int64.
  if (!is_float_dtype(dt) && dt != T2O_DTYPE_INT32) dt = T2O_DTYPE_INT64;
  if (dt == T2O_DTYPE_FLOAT16 || dt == T2O_DTYPE_BFLOAT16) dt = T2O_DTYPE_FLOAT;
  bool out_int32 = ctx.input(2).to_bool(), right = ctx.input(3).to_bool();
  Value xv = to_dtype(ctx, x, dt), b = to_dtype(ctx, bounds, dt);
  int64_t r = x.kind() == T2O_KIND_TENSOR ? known_rank(ctx, x) : 0;
  Value xe = unsqueeze(ctx, xv, {r});
  Value hit = right ? ctx.op("Not", {ctx.op("Less", {xe, b})}) : ctx.op("Less", {b, xe});
  Value count = reduce(ctx, "ReduceSum", ctx.op("Cast", {hit}, {Attr::i("to", T2O_DTYPE_INT64)}), {r}, false);
  ctx.set_output(0, out_int32 ? ctx.op("Cast", {count}, {Attr::i("to", T2O_DTYPE_INT32)}) : count);
}
