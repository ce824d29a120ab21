// Elementwise activations: relu, relu6, hardtanh, sigmoid, tanh, leaky_relu, elu, selu, celu,
// gelu, silu, hardsigmoid, hardswish, mish, softplus, softsign, log_sigmoid, tanhshrink, softshrink,
// hardshrink, threshold, prelu, rrelu in eval mode (+ in-place variants).
// Clip's min/max become inputs at opset 11 (common/forms.hpp picks the form); HardSwish exists
// from 14 (a later pack may override), Gelu from 20. On float64, the ops ONNX Runtime runs on
// float32 only (Elu, Selu, HardSigmoid, LeakyRelu, PRelu, Softplus, Softsign) are replaced by the
// float64 forms of common/float64_forms.hpp.
#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "common/float64_forms.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void unary(Ctx& ctx, const char* op_type, std::vector<Attr> attrs = {}) {
  ctx.set_output(0, ctx.op(op_type, {ctx.input(0)}, attrs));
}

// Floating functions of integer inputs (sigmoid, tanh) compute in the output's float dtype.
void float_unary(Ctx& ctx, const char* op_type) {
  Value x = ctx.input(0);
  t2o_dtype dt = output_dtype(ctx, 0, x.dtype());
  ctx.set_output(0, ctx.op(op_type, {to_dtype(ctx, x, dt)}));
}

double const_number(Ctx& ctx, int32_t i, const char* name) {
  Value v = ctx.input(i);
  if (!v.is_const()) unsupported(ctx.kind() + ": argument '" + name + "' must be constant");
  return v.to_float();
}

void hardtanh(Ctx& ctx) {
  double lo = const_number(ctx, 1, "min_val"), hi = const_number(ctx, 2, "max_val");
  Value x = ctx.input(0);
  ctx.set_output(0, clip(ctx, x, x.dtype(), true, lo, true, hi));
}

void relu6(Ctx& ctx) {
  Value x = ctx.input(0);
  ctx.set_output(0, clip(ctx, x, x.dtype(), true, 0.0, true, 6.0));
}

// x * k and x + k with k a constant of dtype dt (the node input's: emitted values carry no dtype).
Value mul_const(Ctx& ctx, const Value& x, t2o_dtype dt, double k) { return ctx.op("Mul", {x, ctx.scalar(dt, k)}); }
Value add_const(Ctx& ctx, const Value& x, t2o_dtype dt, double k) { return ctx.op("Add", {x, ctx.scalar(dt, k)}); }

void gelu(Ctx& ctx) {
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  std::string approximate = "none";
  if (ctx.num_inputs() > 1 && ctx.input(1).kind() == T2O_KIND_STRING) approximate = ctx.input(1).to_string();
  if (needs_float64_form(dt) && (approximate == "tanh" || approximate == "none"))
    return ctx.set_output(0, f64_gelu(ctx, x, approximate == "tanh"));
  Value inner;
  if (approximate == "tanh") {
    // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
    Value x3 = ctx.op("Mul", {ctx.op("Mul", {x, x}), x});
    Value t = ctx.op("Add", {x, mul_const(ctx, x3, dt, 0.044715)});
    inner = ctx.op("Tanh", {mul_const(ctx, t, dt, std::sqrt(2.0 / M_PI))});
  } else if (approximate == "none") {
    // 0.5 * x * (1 + erf(x / sqrt(2)))
    inner = ctx.op("Erf", {mul_const(ctx, x, dt, 1.0 / std::sqrt(2.0))});
  } else {
    unsupported("aten::gelu: approximate='" + approximate + "'");
  }
  ctx.set_output(0, mul_const(ctx, ctx.op("Mul", {x, add_const(ctx, inner, dt, 1.0)}), dt, 0.5));
}

void leaky_relu(Ctx& ctx) {
  double slope = ctx.num_inputs() > 1 ? const_number(ctx, 1, "negative_slope") : 0.01;
  Value x = ctx.input(0);
  if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_leaky(ctx, x, f64_const(ctx, slope)));
  unary(ctx, "LeakyRelu", {Attr::f("alpha", slope)});
}

// elu(self, alpha, scale, input_scale) = scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1)).
// Elu gives the alpha part when input_scale == 1; otherwise the negative branch is built apart.
void elu(Ctx& ctx) {
  double alpha = const_number(ctx, 1, "alpha");
  double scale = ctx.num_inputs() > 2 ? const_number(ctx, 2, "scale") : 1.0;
  double input_scale = ctx.num_inputs() > 3 ? const_number(ctx, 3, "input_scale") : 1.0;
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  if (needs_float64_form(dt)) return ctx.set_output(0, f64_elu(ctx, x, alpha, scale, input_scale));
  Value y;
  if (input_scale == 1.0) {
    y = ctx.op("Elu", {x}, {Attr::f("alpha", alpha)});
  } else {
    Value neg = ctx.op("Elu", {mul_const(ctx, x, dt, input_scale)}, {Attr::f("alpha", alpha)});
    y = ctx.op("Where", {ctx.op("Greater", {x, ctx.scalar(dt, 0)}), x, neg});
  }
  if (scale != 1.0) y = mul_const(ctx, y, dt, scale);
  ctx.set_output(0, y);
}

// hardsigmoid = clamp(x/6 + 1/2, 0, 1)
void hardsigmoid(Ctx& ctx) {
  Value x = ctx.input(0);
  if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_hardsigmoid(ctx, x));
  unary(ctx, "HardSigmoid", {Attr::f("alpha", 1.0 / 6), Attr::f("beta", 0.5)});
}

// hardswish = x * hardsigmoid(x) (the HardSwish op needs opset 14)
void hardswish(Ctx& ctx) {
  Value x = ctx.input(0);
  if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_hardswish(ctx, x));
  Value hs = ctx.op("HardSigmoid", {x}, {Attr::f("alpha", 1.0 / 6), Attr::f("beta", 0.5)});
  ctx.set_output(0, ctx.op("Mul", {x, hs}));
}

void silu(Ctx& ctx) {
  Value x = ctx.input(0);
  if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_silu(ctx, x));
  ctx.set_output(0, ctx.op("Mul", {x, ctx.op("Sigmoid", {x})}));
}

void mish(Ctx& ctx) {
  Value x = ctx.input(0);
  if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_mish(ctx, x));
  ctx.set_output(0, ctx.op("Mul", {x, ctx.op("Tanh", {ctx.op("Softplus", {x})})}));
}

// softplus(self, beta, threshold) = x where beta*x > threshold, else Softplus(beta*x)/beta.
// The linear part differs from Softplus by about exp(-threshold)/beta: below float precision for
// the default threshold 20, so it is emitted only for smaller thresholds (torch.onnx drops it).
void softplus(Ctx& ctx) {
  double beta = ctx.num_inputs() > 1 ? const_number(ctx, 1, "beta") : 1.0;
  double threshold = ctx.num_inputs() > 2 ? const_number(ctx, 2, "threshold") : 20.0;
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  if (needs_float64_form(dt)) return ctx.set_output(0, f64_softplus(ctx, x, beta, threshold));
  Value bx = beta == 1.0 ? x : mul_const(ctx, x, dt, beta);
  Value y = ctx.op("Softplus", {bx});
  if (beta != 1.0) y = mul_const(ctx, y, dt, 1.0 / beta);
  if (threshold < 20.0) y = ctx.op("Where", {ctx.op("Greater", {bx, ctx.scalar(dt, threshold)}), x, y});
  ctx.set_output(0, y);
}

// prelu(self, weight): weight has C entries (or 1); ONNX PRelu broadcasts slope unidirectionally,
// so a C-vector is reshaped to (C, 1, ..., 1) for inputs of rank > 2.
void prelu(Ctx& ctx) {
  Value x = ctx.input(0), w = ctx.input(1);
  int32_t r = x.rank();
  if (r > 2 && w.rank() == 1 && w.dim(0) != 1) {
    std::vector<int64_t> axes;
    for (int32_t i = 1; i < r - 1; ++i) axes.push_back(i);
    w = unsqueeze(ctx, w, axes);
  }
  // PRelu broadcasts the slope into x's shape: a 1-element slope would make a 0-d x 1-D.
  if (r == 0 && w.rank() != 0) w = ctx.op("Reshape", {w, ctx.const_i64({})});
  if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_leaky(ctx, x, w));
  ctx.set_output(0, ctx.op("PRelu", {x, w}));
}

// x if x > threshold else value
void threshold(Ctx& ctx) {
  double th = const_number(ctx, 1, "threshold"), value = const_number(ctx, 2, "value");
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  ctx.set_output(0, ctx.op("Where", {ctx.op("Greater", {x, ctx.scalar(dt, th)}), x, ctx.scalar(dt, value)}));
}

// softshrink: x - l if x > l, x + l if x < -l, else 0; hardshrink: x if |x| > l else 0. Shrink
// (opset 9) is exactly these with bias l / 0.
void shrink(Ctx& ctx, bool soft) {
  double l = ctx.num_inputs() > 1 ? const_number(ctx, 1, "lambd") : 0.5;
  Value x = ctx.input(0);
  // Shrink's lambd is a float32 attribute: on float64 the comparisons use lambd in float64.
  if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_shrink(ctx, x, l, soft));
  ctx.set_output(0, ctx.op("Shrink", {ctx.input(0)}, {Attr::f("lambd", l), Attr::f("bias", soft ? l : 0.0)}));
}

// celu(x) = max(0,x) + min(0, alpha*(exp(x/alpha)-1)) = alpha * elu(x/alpha) (Celu needs opset 12)
void celu(Ctx& ctx) {
  double alpha = ctx.num_inputs() > 1 ? const_number(ctx, 1, "alpha") : 1.0;
  Value x = ctx.input(0);
  t2o_dtype dt = x.dtype();
  // PyTorch's celu is elu(x, alpha, scale=1, input_scale=1/alpha)
  if (needs_float64_form(dt)) return ctx.set_output(0, f64_elu(ctx, x, alpha, 1.0, 1.0 / alpha));
  Value y = ctx.op("Elu", {mul_const(ctx, x, dt, 1.0 / alpha)}, {Attr::f("alpha", 1.0)});
  ctx.set_output(0, alpha == 1.0 ? y : mul_const(ctx, y, dt, alpha));
}

// selu = scale * elu(x, alpha), with PyTorch's constants
void selu(Ctx& ctx) {
  Value x = ctx.input(0);
  if (needs_float64_form(x.dtype()))
    return ctx.set_output(0, f64_elu(ctx, x, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1.0));
  unary(ctx, "Selu");
}

}  // namespace

T2O_SYMBOLIC("aten::relu", 9) { unary(ctx, "Relu"); }
T2O_SYMBOLIC("aten::relu_", 9) { unary(ctx, "Relu"); }
T2O_SYMBOLIC("aten::relu6", 9) { relu6(ctx); }
T2O_SYMBOLIC("aten::relu6_", 9) { relu6(ctx); }
T2O_SYMBOLIC("aten::hardtanh", 9) { hardtanh(ctx); }
T2O_SYMBOLIC("aten::hardtanh_", 9) { hardtanh(ctx); }
T2O_SYMBOLIC("aten::sigmoid", 9) { float_unary(ctx, "Sigmoid"); }
T2O_SYMBOLIC("aten::sigmoid_", 9) { float_unary(ctx, "Sigmoid"); }
T2O_SYMBOLIC("aten::tanh", 9) { float_unary(ctx, "Tanh"); }
T2O_SYMBOLIC("aten::tanh_", 9) { float_unary(ctx, "Tanh"); }
T2O_SYMBOLIC("aten::leaky_relu", 9) { leaky_relu(ctx); }
T2O_SYMBOLIC("aten::leaky_relu_", 9) { leaky_relu(ctx); }
// rrelu(self, lower=1/8, upper=1/3, training=False, generator): in eval mode a leaky relu with
// slope (lower + upper) / 2; in training mode each element draws its slope from U(lower, upper):
// PRelu with a RandomUniformLike slope tensor.
T2O_SYMBOLIC("aten::rrelu", 9) {
  double lower = ctx.num_inputs() > 1 ? const_number(ctx, 1, "lower") : 1.0 / 8;
  double upper = ctx.num_inputs() > 2 ? const_number(ctx, 2, "upper") : 1.0 / 3;
  if (ctx.num_inputs() > 3 && !ctx.input(3).is_const()) unsupported("aten::rrelu: argument 'training' computed at run time");
  if (ctx.num_inputs() > 3 && ctx.input(3).to_bool()) {
    if (ctx.num_inputs() > 4 && !ctx.input(4).is_none()) unsupported("aten::rrelu: argument 'generator'");
    Value x = ctx.input(0);
    Value slopes = ctx.op("RandomUniformLike", {x}, {Attr::i("dtype", x.dtype()), Attr::f("low", lower), Attr::f("high", upper)});
    if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_leaky(ctx, x, slopes));
    return ctx.set_output(0, ctx.op("PRelu", {x, slopes}));
  }
  Value x = ctx.input(0);
  if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_leaky(ctx, x, f64_const(ctx, (lower + upper) / 2)));
  unary(ctx, "LeakyRelu", {Attr::f("alpha", (lower + upper) / 2)});
}
T2O_SYMBOLIC("aten::elu", 9) { elu(ctx); }
T2O_SYMBOLIC("aten::elu_", 9) { elu(ctx); }
T2O_SYMBOLIC("aten::selu", 9) { selu(ctx); }
T2O_SYMBOLIC("aten::selu_", 9) { selu(ctx); }
T2O_SYMBOLIC("aten::celu", 9) { celu(ctx); }
T2O_SYMBOLIC("aten::gelu", 9) { gelu(ctx); }
T2O_SYMBOLIC("aten::silu", 9) { silu(ctx); }
T2O_SYMBOLIC("aten::silu_", 9) { silu(ctx); }
T2O_SYMBOLIC("aten::mish", 9) { mish(ctx); }
T2O_SYMBOLIC("aten::hardsigmoid", 9) { hardsigmoid(ctx); }
T2O_SYMBOLIC("aten::hardsigmoid_", 9) { hardsigmoid(ctx); }
T2O_SYMBOLIC("aten::hardswish", 9) { hardswish(ctx); }
T2O_SYMBOLIC("aten::hardswish_", 9) { hardswish(ctx); }
T2O_SYMBOLIC("aten::softplus", 9) { softplus(ctx); }
T2O_SYMBOLIC("aten::prelu", 9) { prelu(ctx); }
// _prelu_kernel(self, weight) (PyTorch 2.x's aten-IR form of prelu): the weight already has the shape
// that broadcasts (prelu reshapes it to [C, 1, ...] first), which PRelu takes as it is.
T2O_SYMBOLIC("aten::_prelu_kernel", 9) {
  Value x = ctx.input(0), w = ctx.input(1);
  const int64_t r = known_rank(ctx, x), wr = known_rank(ctx, w, "weight");
  bool fits = wr <= r;
  for (int64_t i = 1; fits && i <= wr; ++i) {
    const int64_t wd = w.dim((int32_t)(wr - i)), xd = x.dim((int32_t)(r - i));
    fits = wd == 1 || wd == xd || (wd < 0 && xd < 0);
  }
  if (!fits)
    unsupported("aten::_prelu_kernel: weight " + str(w.dims()) + " does not broadcast to the input " + str(x.dims()));
  ctx.set_output(0, ctx.op("PRelu", {x, w}));
}
T2O_SYMBOLIC("aten::softsign", 9) {
  Value x = ctx.input(0);
  if (needs_float64_form(x.dtype())) return ctx.set_output(0, f64_softsign(ctx, x));
  unary(ctx, "Softsign");
}
// log(sigmoid(x)) = -softplus(-x) (stable for large |x|)
T2O_SYMBOLIC("aten::log_sigmoid", 9) {
  if (needs_float64_form(ctx.input(0).dtype())) return ctx.set_output(0, f64_log_sigmoid(ctx, ctx.input(0)));
  ctx.set_output(0, ctx.op("Neg", {ctx.op("Softplus", {ctx.op("Neg", {ctx.input(0)})})}));
}
T2O_SYMBOLIC("aten::tanhshrink", 9) {
  Value x = ctx.input(0);
  ctx.set_output(0, ctx.op("Sub", {x, ctx.op("Tanh", {x})}));
}
T2O_SYMBOLIC("aten::softshrink", 9) { shrink(ctx, true); }
T2O_SYMBOLIC("aten::hardshrink", 9) { shrink(ctx, false); }
T2O_SYMBOLIC("aten::threshold", 9) { threshold(ctx); }
T2O_SYMBOLIC("aten::threshold_", 9) { threshold(ctx); }
T2O_SYMBOLIC("aten::gelu_", 9) { gelu(ctx); }
T2O_SYMBOLIC("aten::celu_", 9) { celu(ctx); }
T2O_SYMBOLIC("aten::mish_", 9) { mish(ctx); }
T2O_SYMBOLIC("aten::softplus_", 9) { softplus(ctx); }
