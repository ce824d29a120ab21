// aten::var / std / var_mean / std_mean, in their three overloads:
//   var(self, bool unbiased=True)                              -- every element
//   var.dim(self, int[1]? dim, bool unbiased=True, bool keepdim=False)
//   var.correction(self, int[1]? dim, *, int? correction=None, bool keepdim=False)
// as sum((x - mean)^2) / (N - correction), N the number of reduced elements (Shape-based when
// dynamic). unbiased=True is correction=1; a None correction means 1.
#include <torch2onnx/plugin.hpp>

#include "common/reduce.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void var_std(Ctx& ctx, bool is_std, bool with_mean) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  t2o_dtype dt = output_dtype(ctx, 0, x.dtype());
  if (!is_float_dtype(dt)) unsupported(ctx.kind() + ": input dtype must be floating point");
  std::vector<int64_t> axes;
  bool keepdim = false;
  double correction = 1.0;
  if (ctx.num_inputs() == 2) {
    correction = ctx.input(1).to_bool() ? 1.0 : 0.0;
  } else if (ctx.num_inputs() == 4) {
    axes = reduce_axes(ctx, ctx.input(1), r);
    Value c = ctx.input(2);
    if (c.kind() == T2O_KIND_BOOL) {
      correction = c.to_bool() ? 1.0 : 0.0;
    } else if (!c.is_none()) {
      if (!c.is_const()) unsupported(ctx.kind() + ": argument 'correction' computed at run time");
      correction = c.to_float();
    }
    keepdim = ctx.input(3).to_bool();
  } else if (ctx.num_inputs() != 1) {
    fail(ctx.kind() + ": unexpected overload with " + std::to_string(ctx.num_inputs()) + " inputs");
  }

  Value in = cast_to(ctx, ctx.as_onnx(x), dt);
  Value mean_kept = r == 0 ? in : reduce(ctx, "ReduceMean", in, axes, true);
  Value d = ctx.op("Sub", {in, mean_kept});
  Value sq = ctx.op("Mul", {d, d});
  Value v;
  if (r == 0) {
    v = sq;
  } else if (correction == 0.0) {
    v = reduce(ctx, "ReduceMean", sq, axes, keepdim);
  } else {
    Value n = reduced_count(ctx, x, axes, dt);
    Value denom = ctx.op("Sub", {n, ctx.scalar(dt, correction)});
    v = ctx.op("Div", {reduce(ctx, "ReduceSum", sq, axes, keepdim), denom});
  }
  if (r == 0 && correction != 0.0) {  // one element: 0 / (1 - correction), as PyTorch computes it
    v = ctx.op("Div", {v, ctx.scalar(dt, 1.0 - correction)});
  }
  ctx.set_output(0, is_std ? ctx.op("Sqrt", {v}) : v);
  if (with_mean) ctx.set_output(1, r == 0 || keepdim ? mean_kept : reduce(ctx, "ReduceMean", in, axes, false));
}

}  // namespace

T2O_SYMBOLIC("aten::var", 9) { var_std(ctx, false, false); }
T2O_SYMBOLIC("aten::std", 9) { var_std(ctx, true, false); }
T2O_SYMBOLIC("aten::var_mean", 9) { var_std(ctx, false, true); }
T2O_SYMBOLIC("aten::std_mean", 9) { var_std(ctx, true, true); }
