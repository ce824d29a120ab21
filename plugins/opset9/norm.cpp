// Vector p-norms: aten::norm (Scalar / ScalarOpt_dtype / ScalarOpt_dim / ScalarOpt_dim_dtype),
// aten::frobenius_norm, aten::linalg_vector_norm. (torch.norm(x, 'fro') traces to frobenius_norm;
// F.normalize traces to norm + clamp_min + expand_as + div.)
//   p = 2: ReduceL2   p = 1: ReduceL1   p = inf / -inf: ReduceMax / ReduceMin of |x|
//   p = 0: number of nonzero elements    other p: (sum |x|^p)^(1/p)
#include <torch2onnx/plugin.hpp>

#include <cmath>
#include <limits>

#include "common/reduce.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

Value p_norm(Ctx& ctx, const Value& x, int64_t rank, t2o_dtype dt, double p, const std::vector<int64_t>& axes,
             bool keepdim) {
  Value in = cast_to(ctx, ctx.as_onnx(x), dt);
  if (p == 0.0) {
    // Cast to bool is x != 0 (NaN -> true, as in PyTorch); Equal lacks float types before opset 11.
    Value nz = ctx.op("Cast", {in}, {Attr::i("to", T2O_DTYPE_BOOL)});
    Value f = ctx.op("Cast", {nz}, {Attr::i("to", dt)});
    return rank == 0 ? f : reduce(ctx, "ReduceSum", f, axes, keepdim);
  }
  if (rank == 0) return ctx.op("Abs", {in});  // |x| for every p != 0
  if (p == 2.0) return reduce(ctx, "ReduceL2", in, axes, keepdim);
  if (p == 1.0) return reduce(ctx, "ReduceL1", in, axes, keepdim);
  Value a = ctx.op("Abs", {in});
  if (std::isinf(p)) return reduce(ctx, p > 0 ? "ReduceMax" : "ReduceMin", a, axes, keepdim);
  Value s = reduce(ctx, "ReduceSum", ctx.op("Pow", {a, ctx.scalar(dt, p)}), axes, keepdim);
  return ctx.op("Pow", {s, ctx.scalar(dt, 1.0 / p)});
}

double p_arg(Ctx& ctx, const Value& v, const char* name) {
  if (!v.valid() || v.is_none()) return 2.0;
  if (!v.is_const()) unsupported(ctx.kind() + ": argument '" + name + "' computed at run time");
  if (v.kind() == T2O_KIND_STRING) unsupported(ctx.kind() + ": " + name + "='" + v.to_string() + "'");
  return v.to_float();
}

void require_rank(Ctx& ctx, int64_t r) {
  if (r < 0) unsupported(ctx.kind() + ": input rank unknown");
}

}  // namespace

T2O_SYMBOLIC("aten::norm", 9) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  require_rank(ctx, r);
  t2o_dtype dt = output_dtype(ctx, 0, x.dtype());
  double p = p_arg(ctx, opt_input(ctx, 1), "p");
  std::vector<int64_t> axes;
  bool keepdim = false;
  // (self, p) and (self, p, dtype) reduce everything; (self, p, dim, keepdim[, dtype]) reduce dim.
  if (ctx.num_inputs() >= 4) {
    axes = reduce_axes(ctx, ctx.input(2), r);
    keepdim = ctx.input(3).to_bool();
  }
  ctx.set_output(0, p_norm(ctx, x, r, dt, p, axes, keepdim));
}

// frobenius_norm(self) / frobenius_norm.dim(self, int[1] dim, bool keepdim=False): [] = every axis.
T2O_SYMBOLIC("aten::frobenius_norm", 9) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  require_rank(ctx, r);
  std::vector<int64_t> axes;
  bool keepdim = false;
  if (ctx.num_inputs() >= 3) {
    axes = reduce_axes(ctx, ctx.input(1), r);
    keepdim = ctx.input(2).to_bool();
  }
  ctx.set_output(0, p_norm(ctx, x, r, output_dtype(ctx, 0, x.dtype()), 2.0, axes, keepdim));
}

// linalg_vector_norm(self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype)
T2O_SYMBOLIC("aten::linalg_vector_norm", 9) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  require_rank(ctx, r);
  double p = p_arg(ctx, opt_input(ctx, 1), "ord");
  std::vector<int64_t> axes = reduce_axes(ctx, opt_input(ctx, 2), r);
  bool keepdim = ctx.num_inputs() > 3 && ctx.input(3).to_bool();
  ctx.set_output(0, p_norm(ctx, x, r, output_dtype(ctx, 0, x.dtype()), p, axes, keepdim));
}
