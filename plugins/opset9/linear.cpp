// aten::linear, aten::addmm, aten::baddbmm, aten::matmul, aten::mm, aten::bmm, aten::mv, aten::dot,
// aten::t -> Gemm / MatMul / Transpose. (ONNX MatMul has numpy semantics, PyTorch matmul's too:
// 1-D operands, batch broadcasting.)
// Gemm (float types; integer types need opset 11) is used for 2-D linear/addmm; other ranks use
// MatMul (+ Add for the bias). baddbmm's beta and alpha may be computed at run time (torch.onnx
// casts them to the result's dtype and multiplies); a beta of 0 still ignores self there, as
// PyTorch does.
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

bool gemm_dtype(t2o_dtype d) { return d == T2O_DTYPE_FLOAT || d == T2O_DTYPE_DOUBLE || d == T2O_DTYPE_FLOAT16; }

Value transpose_2d(Ctx& ctx, const Value& w) { return ctx.op("Transpose", {w}, {Attr::ints("perm", {1, 0})}); }

// A Scalar argument's value (beta/alpha), constant only.
double const_scalar(Ctx& ctx, int32_t i, const char* name, double fallback) {
  if (i >= ctx.num_inputs()) return fallback;
  Value v = ctx.input(i);
  if (v.is_none()) return fallback;
  if (!v.is_const()) unsupported(ctx.kind() + ": argument '" + name + "' must be constant");
  return v.to_float();
}

// beta*c + alpha*(a @ b) with MatMul/Mul/Add. beta=0 ignores c entirely (PyTorch does not
// propagate its NaN/inf then).
Value mul_add(Ctx& ctx, const Value& c, const Value& a, const Value& b, double beta, double alpha) {
  t2o_dtype dt = pack::output_dtype(ctx, 0, a.dtype());
  Value y = ctx.op("MatMul", {a, b});
  if (alpha != 1.0) y = ctx.op("Mul", {y, ctx.scalar(dt, alpha)});
  if (beta == 0.0) return y;
  Value cc = beta != 1.0 ? ctx.op("Mul", {c, ctx.scalar(dt, beta)}) : c;
  return ctx.op("Add", {y, cc});
}

}  // namespace

// linear(input, weight, bias): y = x W^T + b
T2O_SYMBOLIC("aten::linear", 9) {
  Value x = ctx.input(0), w = ctx.input(1), b = opt_input(ctx, 2);
  // Gemm's C is required before opset 11: without a bias use MatMul.
  if (b.valid() && x.rank() == 2 && w.rank() == 2 && b.rank() == 1 && gemm_dtype(x.dtype()))
    return ctx.set_output(0, ctx.op("Gemm", {x, w, b}, {Attr::i("transB", 1)}));
  Value wt = w.rank() == 2 ? transpose_2d(ctx, w) : w;
  Value y = ctx.op("MatMul", {x, wt});
  if (b.valid()) y = ctx.op("Add", {y, b});
  ctx.set_output(0, y);
}

// addmm(self, mat1, mat2, *, beta=1, alpha=1): beta*self + alpha*(mat1 @ mat2)
T2O_SYMBOLIC("aten::addmm", 9) {
  Value c = ctx.input(0), a = ctx.input(1), b = ctx.input(2);
  double beta = const_scalar(ctx, 3, "beta", 1.0), alpha = const_scalar(ctx, 4, "alpha", 1.0);
  if (gemm_dtype(a.dtype()) && beta != 0.0)
    return ctx.set_output(0, ctx.op("Gemm", {a, b, c}, {Attr::f("alpha", alpha), Attr::f("beta", beta)}));
  ctx.set_output(0, mul_add(ctx, c, a, b, beta, alpha));
}

// baddbmm(self, batch1, batch2, *, beta=1, alpha=1): beta*self + alpha*(batch1 @ batch2)
T2O_SYMBOLIC("aten::baddbmm", 9) {
  Value beta_v = opt_input(ctx, 3), alpha_v = opt_input(ctx, 4);
  bool run_time = (beta_v.valid() && !beta_v.is_const()) || (alpha_v.valid() && !alpha_v.is_const());
  if (!run_time) {
    double beta = const_scalar(ctx, 3, "beta", 1.0), alpha = const_scalar(ctx, 4, "alpha", 1.0);
    return ctx.set_output(0, mul_add(ctx, ctx.input(0), ctx.input(1), ctx.input(2), beta, alpha));
  }
  // beta or alpha a graph value: each cast to the result's dtype; self * beta replaced by 0 where
  // beta == 0 (PyTorch ignores self then, NaN and inf included).
  Value c = ctx.input(0);
  t2o_dtype dt = output_dtype(ctx, 0, c.dtype());
  Value y = ctx.op("MatMul", {ctx.input(1), ctx.input(2)});
  if (alpha_v.valid()) y = ctx.op("Mul", {y, to_dtype(ctx, alpha_v, dt)});
  if (!beta_v.valid()) return ctx.set_output(0, ctx.op("Add", {y, c}));
  Value beta = to_dtype(ctx, beta_v, dt), zero = ctx.scalar(dt, 0);
  Value scaled = ctx.op("Where", {equal(ctx, beta, zero, dt), zero, ctx.op("Mul", {c, beta})});
  ctx.set_output(0, ctx.op("Add", {y, scaled}));
}

T2O_SYMBOLIC("aten::matmul", 9) { ctx.set_output(0, ctx.op("MatMul", {ctx.input(0), ctx.input(1)})); }
T2O_SYMBOLIC("aten::mm", 9) { ctx.set_output(0, ctx.op("MatMul", {ctx.input(0), ctx.input(1)})); }
T2O_SYMBOLIC("aten::bmm", 9) { ctx.set_output(0, ctx.op("MatMul", {ctx.input(0), ctx.input(1)})); }
T2O_SYMBOLIC("aten::mv", 9) { ctx.set_output(0, ctx.op("MatMul", {ctx.input(0), ctx.input(1)})); }
// dot(self, tensor): 1-D @ 1-D gives a 0-d tensor, as in PyTorch.
T2O_SYMBOLIC("aten::dot", 9) { ctx.set_output(0, ctx.op("MatMul", {ctx.input(0), ctx.input(1)})); }

// t(self): transpose of a <= 2-D tensor (0-D and 1-D are returned as is).
T2O_SYMBOLIC("aten::t", 9) {
  Value x = ctx.input(0);
  known_rank(ctx, x);
  if (x.rank() < 2) return ctx.set_output(0, x);
  ctx.set_output(0, transpose_2d(ctx, x));
}
