// Negative log-likelihood and cross-entropy losses, decomposed (any opset; ONNX's
// NegativeLogLikelihoodLoss/SoftmaxCrossEntropyLoss lack label smoothing and probability targets):
//   aten::nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, SymInt ignore_index=-100)
//   aten::nll_loss_nd(...), aten::nll_loss2d(...)   (same arguments)
//   aten::cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean,
//       SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor
// self is (N, C, d1, ...) or unbatched (C); class indices `target` are (N, d1, ...) or ().
// The picked entries self[n, target[n, ...], ...] are selected with a mask target == class id
// (a [1, C, 1, ...] constant, or Range when C is dynamic), which also drops ignore_index and
// needs no gather of an out-of-range index. mean divides by the sum of the picked weights (the
// count of non-ignored targets without weights), as PyTorch does.
// cross_entropy with probabilities as targets (target has self's shape and a floating type):
// -sum_c(log_softmax(self) * t * w), t smoothed to t (1 - eps) + eps / C; mean divides by N*d1*...
#include <torch2onnx/plugin.hpp>

#include <numeric>

#include "common/loss.hpp"
#include "common/reduce.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// Class ids along axis 1 shaped [1, C, 1, ...] for a rank-r input.
Value class_ids(Ctx& ctx, const Value& x, int64_t r) {
  std::vector<int64_t> shape((size_t)r, 1);
  int64_t c = x.dim(1);
  if (c >= 0) {
    std::vector<int64_t> ids((size_t)c);
    std::iota(ids.begin(), ids.end(), 0);
    shape[1] = c;
    return ctx.tensor(T2O_DTYPE_INT64, shape, ids.data(), ids.size() * sizeof(int64_t));
  }
  require(ctx, feature::kRange, "a dynamic number of classes");
  Value ids = ctx.op("Range", {ctx.scalar_i64(0), dim_tensor(ctx, x, 1), ctx.scalar_i64(1)});
  shape[1] = -1;
  return ctx.op("Reshape", {ids, ctx.const_i64(shape)});
}

// Weight reshaped to [1, C, 1, ...] in dtype dt (invalid when there is none).
Value class_weight(Ctx& ctx, const Value& w, int64_t r, t2o_dtype dt) {
  if (!w.valid()) return Value();
  if (w.rank() != 1) fail(ctx.kind() + ": argument 'weight' must be 1-D");
  std::vector<int64_t> shape((size_t)r, 1);
  shape[1] = -1;
  return ctx.op("Reshape", {to_dtype(ctx, w, dt), ctx.const_i64(shape)});
}

struct Picked {
  Value loss;    // -w[t] * logp[t] per target element (0 where ignored)
  Value weight;  // w[t] per target element (0 where ignored)
  Value valid;   // target != ignore_index, keeping the class axis: (N, 1, d1, ...)
};

// logp (N, C, d1, ...) rank r, target (N, d1, ...) int64.
Picked pick(Ctx& ctx, const Value& logp, const Value& x_shape_src, const Value& target, const Value& wb,
            const Value& ignore_index, int64_t r, t2o_dtype dt) {
  Value t1 = unsqueeze(ctx, target, {1});
  Value valid = ctx.op("Not", {ctx.op("Equal", {t1, to_dtype(ctx, ignore_index, T2O_DTYPE_INT64)})});
  Value hit = ctx.op("And", {ctx.op("Equal", {t1, class_ids(ctx, x_shape_src, r)}), valid});
  Value zero = ctx.scalar(dt, 0.0);
  Value weighted = wb.valid() ? ctx.op("Mul", {logp, wb}) : logp;
  Value loss = ctx.op("Neg", {reduce(ctx, "ReduceSum", ctx.op("Where", {hit, weighted, zero}), {1}, false)});
  Value w = wb.valid() ? wb : ctx.scalar(dt, 1.0);
  Value wsel = reduce(ctx, "ReduceSum", ctx.op("Where", {hit, w, zero}), {1}, false);
  return {loss, wsel, valid};
}

Value reduce_picked(Ctx& ctx, const Value& loss, const Value& weight, int64_t reduction) {
  if (reduction == kReduceNone) return loss;
  Value sum = reduce(ctx, "ReduceSum", loss, {}, false);
  if (reduction == kReduceSum) return sum;
  return ctx.op("Div", {sum, reduce(ctx, "ReduceSum", weight, {}, false)});
}

struct Args {
  Value x;  // ONNX, batched (rank >= 2)
  Value target;
  Value weight;
  int64_t reduction;
  Value ignore_index;
  int64_t r;
  bool unbatched;
  t2o_dtype dt;
};

Args read_args(Ctx& ctx) {
  Value x = ctx.input(0), t = ctx.input(1);
  int64_t r = x.rank();
  if (r < 1 || t.rank() < 0) unsupported(ctx.kind() + ": input ranks unknown");
  t2o_dtype dt = output_dtype(ctx, 0, x.dtype());
  if (!is_float_dtype(dt)) unsupported(ctx.kind() + ": input of a non-floating element type");
  Args a{ctx.as_onnx(x), ctx.as_onnx(t), opt_input(ctx, 2), loss_reduction(ctx, ctx.input(3)), ctx.input(4), r,
         r == 1, dt};
  if (a.unbatched) {  // (C) with target (): as a batch of one
    a.x = typed(ctx, unsqueeze(ctx, a.x, {0}), dt, 2, {1, x.dim(0)});
    if (t.rank() == 0) a.target = unsqueeze(ctx, a.target, {0});
    else if (t.rank() == 1) a.target = typed(ctx, unsqueeze(ctx, a.target, {0}), t.dtype(), 2, {1, t.dim(0)});
    a.r = 2;
  }
  return a;
}

// Binds a per-element result, dropping the batch axis added for an unbatched input.
void set_loss(Ctx& ctx, const Args& a, Value y) {
  if (a.unbatched && a.reduction == kReduceNone) y = squeeze(ctx, y, {0});
  ctx.set_output(0, y);
}

void nll_loss(Ctx& ctx) {
  Args a = read_args(ctx);
  int64_t tr = ctx.input(1).rank();
  if (a.unbatched ? tr != 0 : tr != a.r - 1)
    fail(ctx.kind() + ": target rank " + std::to_string(ctx.input(1).rank()) + " for an input of rank " +
         std::to_string(ctx.input(0).rank()));
  Value target = cast_to(ctx, a.target, T2O_DTYPE_INT64);
  Value wb = class_weight(ctx, a.weight, a.r, a.dt);
  Picked p = pick(ctx, cast_to(ctx, a.x, a.dt), a.x, target, wb, a.ignore_index, a.r, a.dt);
  set_loss(ctx, a, reduce_picked(ctx, p.loss, p.weight, a.reduction));
}

// The number of classes as a 0-d tensor of dtype dt.
Value class_count(Ctx& ctx, const Value& x, t2o_dtype dt) {
  int64_t c = x.dim(1);
  if (c >= 0) return ctx.scalar(dt, (double)c);
  return ctx.op("Cast", {dim_tensor(ctx, x, 1)}, {Attr::i("to", dt)});
}

void cross_entropy(Ctx& ctx) {
  Args a = read_args(ctx);
  double eps = ctx.num_inputs() > 5 ? ctx.input(5).to_float() : 0.0;
  if (eps < 0 || eps > 1) fail("aten::cross_entropy_loss: argument 'label_smoothing'=" + std::to_string(eps));
  Value logp = softmax(ctx, "LogSoftmax", cast_to(ctx, a.x, a.dt), 1, a.r);
  Value wb = class_weight(ctx, a.weight, a.r, a.dt);
  Value zero = ctx.scalar(a.dt, 0.0);
  Value c = class_count(ctx, a.x, a.dt);
  Value target_in = ctx.input(1);
  if (is_float_dtype(target_in.dtype())) {  // class probabilities, shaped like self
    Value t = cast_to(ctx, a.target, a.dt);
    if (eps > 0)
      t = ctx.op("Add", {ctx.op("Mul", {t, ctx.scalar(a.dt, 1 - eps)}), ctx.op("Div", {ctx.scalar(a.dt, eps), c})});
    Value prod = ctx.op("Mul", {logp, t});
    if (wb.valid()) prod = ctx.op("Mul", {prod, wb});
    Value y;
    if (a.reduction == kReduceNone) {
      y = ctx.op("Neg", {reduce(ctx, "ReduceSum", prod, {1}, false)});
    } else {
      y = ctx.op("Neg", {reduce(ctx, "ReduceSum", prod, {}, false)});
      if (a.reduction == kReduceMean) {  // divided by numel / C = N * d1 * ...
        std::vector<int64_t> batch_axes{0};
        for (int64_t i = 2; i < a.r; ++i) batch_axes.push_back(i);
        y = ctx.op("Div", {y, reduced_count(ctx, a.x, batch_axes, a.dt)});
      }
    }
    return set_loss(ctx, a, y);
  }
  Value target = cast_to(ctx, a.target, T2O_DTYPE_INT64);
  Picked p = pick(ctx, logp, a.x, target, wb, a.ignore_index, a.r, a.dt);
  Value nll = reduce_picked(ctx, p.loss, p.weight, a.reduction);
  if (eps == 0) return set_loss(ctx, a, nll);
  // Smoothing term: -sum_c(logp * w) per element, 0 where ignored; mean divides by the same
  // picked-weight sum as nll.
  Value weighted = wb.valid() ? ctx.op("Mul", {logp, wb}) : logp;
  Value smooth = ctx.op("Neg", {reduce(ctx, "ReduceSum", weighted, {1}, true)});
  smooth = squeeze(ctx, ctx.op("Where", {p.valid, smooth, zero}), {1});
  Value smooth_red = reduce_picked(ctx, smooth, p.weight, a.reduction);
  Value y = ctx.op("Add", {ctx.op("Mul", {nll, ctx.scalar(a.dt, 1 - eps)}),
                           ctx.op("Mul", {smooth_red, ctx.op("Div", {ctx.scalar(a.dt, eps), c})})});
  set_loss(ctx, a, y);
}

}  // namespace

T2O_SYMBOLIC("aten::nll_loss", 9) { nll_loss(ctx); }
T2O_SYMBOLIC("aten::nll_loss_nd", 9) { nll_loss(ctx); }
T2O_SYMBOLIC("aten::nll_loss2d", 9) { nll_loss(ctx); }
T2O_SYMBOLIC("aten::cross_entropy_loss", 9) { cross_entropy(ctx); }
