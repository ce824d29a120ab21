// aten::mean (all elements) and aten::mean.dim(self, dim, keepdim, dtype) -> ReduceMean;
// aten::sum / aten::sum.dim_IntList -> ReduceSum. Axes are an attribute up to opset 12 (ReduceSum)
// / 17 (other Reduce*) and an input after; common/forms.hpp `reduce` picks the form by opset.
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void reduce_op(Ctx& ctx, const char* op_type) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  std::vector<int64_t> axes;
  bool keepdim = false;
  if (ctx.num_inputs() >= 3) {  // the .dim overload: (self, dim, keepdim, dtype)
    Value dim = ctx.input(1);
    if (!dim.is_none()) {
      if (!all_const(dim)) unsupported(ctx.kind() + ": argument 'dim' computed at run time");
      axes = normalize_axes(ctx, dim.to_ints(), r);
    }
    keepdim = ctx.input(2).to_bool();
  }
  // dtype (last input) or integer sums: convert the input to the output's dtype first.
  Value in = ctx.as_onnx(x);
  t2o_dtype dt = output_dtype(ctx, 0, x.dtype());
  in = cast_to(ctx, in, dt);
  if (r == 0) return ctx.set_output(0, in);  // reducing a 0-d tensor returns it
  ctx.set_output(0, reduce(ctx, op_type, in, axes, keepdim));
}

}  // namespace

T2O_SYMBOLIC("aten::mean", 9) { reduce_op(ctx, "ReduceMean"); }
T2O_SYMBOLIC("aten::sum", 9) { reduce_op(ctx, "ReduceSum"); }
