// Element-wise losses, decomposed into arithmetic (any opset) and reduced as PyTorch's
// apply_loss_reduction does (none / mean / sum over every element):
//   aten::mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor          (x - t)^2
//   aten::l1_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor           |x - t|
//   aten::smooth_l1_loss(Tensor self, Tensor target, int reduction=Mean, float beta=1.0) -> Tensor
//       z = |x - t|: z < beta ? 0.5 z^2 / beta : z - 0.5 beta (beta = 0: z)
//   aten::huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) -> Tensor
//       z < delta ? 0.5 z^2 : delta (z - 0.5 delta)
//   aten::kl_div(Tensor self, Tensor target, int reduction=Mean, *, bool log_target=False) -> Tensor
//       log_target: exp(t) (t - x); else xlogy(t, t) - t x (0 where t == 0)
//   aten::binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean) -> Tensor
//       w ((t - 1) max(log(1 - x), -100) - t max(log(x), -100))
//   aten::binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None,
//       Tensor? pos_weight=None, int reduction=Mean) -> Tensor
//       m = max(-x, 0); lw = (pos_weight - 1) t + 1:  (1 - t) x + lw (log(exp(-m) + exp(-x - m)) + m)
//       (PyTorch's overflow-free form), times weight.
// F.kl_div's reduction='batchmean' reaches TorchScript as sum followed by aten::div.
#include <torch2onnx/plugin.hpp>

#include <algorithm>

#include "common/loss.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

struct LossArgs {
  Value x, t;       // ONNX tensors of the loss's dtype
  t2o_dtype dt;
  int64_t rank;     // rank of the broadcast element-wise loss
};

LossArgs loss_args(Ctx& ctx) {
  Value x = ctx.input(0), t = ctx.input(1);
  if (x.rank() < 0 || t.rank() < 0) unsupported(ctx.kind() + ": input ranks unknown");
  t2o_dtype dt = output_dtype(ctx, 0, x.dtype());
  if (!is_float_dtype(dt)) unsupported(ctx.kind() + ": input of a non-floating element type");
  return {to_dtype(ctx, x, dt), to_dtype(ctx, t, dt), dt, std::max<int64_t>(x.rank(), t.rank())};
}

void finish(Ctx& ctx, const LossArgs& a, const Value& elementwise, int32_t reduction_input) {
  int64_t reduction = loss_reduction(ctx, ctx.input(reduction_input));
  ctx.set_output(0, apply_loss_reduction(ctx, elementwise, reduction, a.rank));
}

// 0.5 z^2 / scale  (scale = beta for smooth_l1, 1 for huber)
Value half_square(Ctx& ctx, const Value& z, t2o_dtype dt, double scale) {
  return ctx.op("Mul", {ctx.op("Mul", {z, z}), ctx.scalar(dt, 0.5 / scale)});
}

}  // namespace

T2O_SYMBOLIC("aten::mse_loss", 9) {
  LossArgs a = loss_args(ctx);
  Value d = ctx.op("Sub", {a.x, a.t});
  finish(ctx, a, ctx.op("Mul", {d, d}), 2);
}

T2O_SYMBOLIC("aten::l1_loss", 9) {
  LossArgs a = loss_args(ctx);
  finish(ctx, a, ctx.op("Abs", {ctx.op("Sub", {a.x, a.t})}), 2);
}

T2O_SYMBOLIC("aten::smooth_l1_loss", 9) {
  LossArgs a = loss_args(ctx);
  double beta = ctx.num_inputs() > 3 ? ctx.input(3).to_float() : 1.0;
  if (beta < 0) fail("aten::smooth_l1_loss: argument 'beta'=" + std::to_string(beta) + " is negative");
  Value z = ctx.op("Abs", {ctx.op("Sub", {a.x, a.t})});
  if (beta == 0) return finish(ctx, a, z, 2);
  Value small = ctx.op("Less", {z, ctx.scalar(a.dt, beta)});
  Value y = ctx.op("Where", {small, half_square(ctx, z, a.dt, beta), ctx.op("Sub", {z, ctx.scalar(a.dt, 0.5 * beta)})});
  finish(ctx, a, y, 2);
}

T2O_SYMBOLIC("aten::huber_loss", 9) {
  LossArgs a = loss_args(ctx);
  double delta = ctx.num_inputs() > 3 ? ctx.input(3).to_float() : 1.0;
  if (delta <= 0) fail("aten::huber_loss: argument 'delta'=" + std::to_string(delta) + " must be positive");
  Value z = ctx.op("Abs", {ctx.op("Sub", {a.x, a.t})});
  Value small = ctx.op("Less", {z, ctx.scalar(a.dt, delta)});
  Value linear = ctx.op("Mul", {ctx.op("Sub", {z, ctx.scalar(a.dt, 0.5 * delta)}), ctx.scalar(a.dt, delta)});
  finish(ctx, a, ctx.op("Where", {small, half_square(ctx, z, a.dt, 1.0), linear}), 2);
}

T2O_SYMBOLIC("aten::kl_div", 9) {
  LossArgs a = loss_args(ctx);
  bool log_target = ctx.num_inputs() > 3 && ctx.input(3).to_bool();
  Value y;
  if (log_target) {
    y = ctx.op("Mul", {ctx.op("Exp", {a.t}), ctx.op("Sub", {a.t, a.x})});
  } else {
    // xlogy(t, t): 0 where t == 0, t log t elsewhere (NaN included). Equal takes floats only from
    // opset 11, so t != 0 is spelled t < 0 or t > 0 or isnan(t).
    Value zero = ctx.scalar(a.dt, 0.0);
    Value nonzero = ctx.op("Or", {ctx.op("Or", {ctx.op("Less", {a.t, zero}), ctx.op("Greater", {a.t, zero})}),
                                  ctx.op("IsNaN", {a.t})});
    Value tlogt = ctx.op("Where", {nonzero, ctx.op("Mul", {a.t, ctx.op("Log", {a.t})}), zero});
    y = ctx.op("Sub", {tlogt, ctx.op("Mul", {a.t, a.x})});
  }
  finish(ctx, a, y, 2);
}

T2O_SYMBOLIC("aten::binary_cross_entropy", 9) {
  LossArgs a = loss_args(ctx);
  Value w = opt_input(ctx, 2);
  Value floor = ctx.scalar(a.dt, -100.0), one = ctx.scalar(a.dt, 1.0);
  Value log_x = ctx.op("Max", {ctx.op("Log", {a.x}), floor});
  Value log_1mx = ctx.op("Max", {ctx.op("Log", {ctx.op("Sub", {one, a.x})}), floor});
  Value y = ctx.op("Sub", {ctx.op("Mul", {ctx.op("Sub", {a.t, one}), log_1mx}), ctx.op("Mul", {a.t, log_x})});
  if (w.valid()) {
    y = ctx.op("Mul", {y, to_dtype(ctx, w, a.dt)});
    a.rank = std::max<int64_t>(a.rank, w.rank());
  }
  finish(ctx, a, y, 3);
}

T2O_SYMBOLIC("aten::binary_cross_entropy_with_logits", 9) {
  LossArgs a = loss_args(ctx);
  Value w = opt_input(ctx, 2), pos_weight = opt_input(ctx, 3);
  Value one = ctx.scalar(a.dt, 1.0);
  Value m = ctx.op("Relu", {ctx.op("Neg", {a.x})});  // max(-x, 0)
  // log(exp(-m) + exp(-x - m)) + m == log(1 + exp(-x)) without overflow
  Value softplus_neg = ctx.op("Add", {ctx.op("Log", {ctx.op("Add", {ctx.op("Exp", {ctx.op("Neg", {m})}),
                                                                     ctx.op("Exp", {ctx.op("Sub", {ctx.op("Neg", {a.x}), m})})})}),
                                      m});
  if (pos_weight.valid()) {
    Value pw = to_dtype(ctx, pos_weight, a.dt);
    Value log_weight = ctx.op("Add", {ctx.op("Mul", {ctx.op("Sub", {pw, one}), a.t}), one});
    softplus_neg = ctx.op("Mul", {log_weight, softplus_neg});
    a.rank = std::max<int64_t>(a.rank, pos_weight.rank());
  }
  Value y = ctx.op("Add", {ctx.op("Mul", {ctx.op("Sub", {one, a.t}), a.x}), softplus_neg});
  if (w.valid()) {
    y = ctx.op("Mul", {y, to_dtype(ctx, w, a.dt)});
    a.rank = std::max<int64_t>(a.rank, w.rank());
  }
  finish(ctx, a, y, 4);
}
