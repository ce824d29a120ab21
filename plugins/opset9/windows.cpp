// Window functions, the generalized cosine window w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N)
// for n in [0, L), N = L when periodic (the default) else L - 1; L = 1 gives [1], L = 0 an empty
// window (ATen's definitions):
//   aten::hann_window      a0 = 0.5,   a1 = 0.5,  a2 = 0
//   aten::hamming_window   a0 = alpha, a1 = beta, a2 = 0   (alpha = 0.54, beta = 0.46 by default)
//   aten::blackman_window  a0 = 0.42,  a1 = 0.5,  a2 = 0.08
// A constant length gives a constant window; a run-time length builds n from NonZero of a
// ConstantOfShape of ones (every opset has them; Range needs 11).
//
// hann_window(int window_length, *, ScalarType? dtype, Layout? layout, Device? device, bool? pin_memory)
// hann_window.periodic(int window_length, bool periodic, *, dtype, layout, device, pin_memory)
// hamming_window.periodic_alpha_beta(int window_length, bool periodic, float alpha, float beta, *, ...)
// (and hamming_window, .periodic, .periodic_alpha; blackman_window, .periodic)
#include <torch2onnx/plugin.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

struct Coefficients {
  double a0, a1, a2;
};

const double kPi = 3.14159265358979323846;

// A constant window of `dt` (float or double; other float types via a float constant + Cast).
Value constant_window(Ctx& ctx, int64_t length, bool periodic, Coefficients c, t2o_dtype dt) {
  std::vector<double> w((size_t)length, 1.0);
  if (length > 1) {
    double n_span = periodic ? (double)length : (double)(length - 1);
    for (int64_t i = 0; i < length; ++i) {
      double phase = 2.0 * kPi * (double)i / n_span;
      w[(size_t)i] = c.a0 - c.a1 * std::cos(phase) + c.a2 * std::cos(2.0 * phase);
    }
  }
  std::vector<int64_t> dims{length};
  if (dt == T2O_DTYPE_DOUBLE) return ctx.tensor(dt, dims, w.data(), w.size() * sizeof(double));
  std::vector<float> f(w.begin(), w.end());
  Value t = ctx.tensor(T2O_DTYPE_FLOAT, dims, f.data(), f.size() * sizeof(float));
  return dt == T2O_DTYPE_FLOAT ? t : ctx.op("Cast", {t}, {Attr::i("to", dt)});
}

Value dynamic_window(Ctx& ctx, const Value& length_arg, bool periodic, Coefficients c, t2o_dtype dt) {
  t2o_dtype calc = dt == T2O_DTYPE_DOUBLE ? T2O_DTYPE_DOUBLE : T2O_DTYPE_FLOAT;
  Value length = typed(ctx, to_dtype(ctx, length_arg, T2O_DTYPE_INT64), T2O_DTYPE_INT64, 0);
  Value ones = ctx.op("ConstantOfShape", {unsqueeze(ctx, length, {0})},
                     {Attr::tensor("value", ctx.const_i64({1}))});
  Value n = ctx.op("Reshape", {ctx.op("NonZero", {ones}), ctx.const_i64({-1})});  // [1, L] -> [L]
  Value n_span = periodic ? length : ctx.op("Sub", {length, ctx.scalar_i64(1)});
  Value phase = ctx.op("Div", {ctx.op("Mul", {ctx.op("Cast", {n}, {Attr::i("to", calc)}), ctx.scalar(calc, 2.0 * kPi)}),
                               ctx.op("Cast", {n_span}, {Attr::i("to", calc)})});
  Value w = ctx.op("Sub", {ctx.scalar(calc, c.a0), ctx.op("Mul", {ctx.scalar(calc, c.a1), ctx.op("Cos", {phase})})});
  if (c.a2 != 0.0) {
    Value phase2 = ctx.op("Mul", {phase, ctx.scalar(calc, 2.0)});
    w = ctx.op("Add", {w, ctx.op("Mul", {ctx.scalar(calc, c.a2), ctx.op("Cos", {phase2})})});
  }
  // L = 1: [1] (N would be 0 without periodic).
  w = ctx.op("Where", {ctx.op("Equal", {length, ctx.scalar_i64(1)}), ctx.scalar(calc, 1.0), w});
  return calc == dt ? w : ctx.op("Cast", {w}, {Attr::i("to", dt)});
}

// Positional arguments come before the four keyword ones (dtype, layout, device, pin_memory).
void window(Ctx& ctx, Coefficients c, bool has_alpha_beta) {
  int32_t positional = ctx.num_inputs() - 4;
  if (positional < 1) fail(ctx.kind() + ": expected window_length and the dtype/layout/device/pin_memory arguments");
  Value length = ctx.input(0);
  if (length.kind() != T2O_KIND_INT) unsupported(ctx.kind() + ": argument 'window_length' is not an int");
  bool periodic = true;
  if (positional >= 2) {
    if (!ctx.input(1).is_const()) unsupported(ctx.kind() + ": argument 'periodic' is computed at run time");
    periodic = ctx.input(1).to_bool();
  }
  if (has_alpha_beta && positional >= 3) {
    if (!ctx.input(2).is_const()) unsupported(ctx.kind() + ": argument 'alpha' is computed at run time");
    c.a0 = ctx.input(2).to_float();
  }
  if (has_alpha_beta && positional >= 4) {
    if (!ctx.input(3).is_const()) unsupported(ctx.kind() + ": argument 'beta' is computed at run time");
    c.a1 = ctx.input(3).to_float();
  }
  t2o_dtype dt = output_dtype(ctx, 0, T2O_DTYPE_FLOAT);
  if (!is_float_dtype(dt)) unsupported(ctx.kind() + ": argument 'dtype' is not a floating type");
  if (length.is_const()) {
    int64_t n = length.to_int();
    if (n < 0) fail(ctx.kind() + ": requires non-negative window_length, got " + std::to_string(n));
    return ctx.set_output(0, constant_window(ctx, n, periodic, c, dt));
  }
  ctx.set_output(0, dynamic_window(ctx, length, periodic, c, dt));
}

}  // namespace

T2O_SYMBOLIC("aten::hann_window", 9) { window(ctx, {0.5, 0.5, 0.0}, false); }
T2O_SYMBOLIC("aten::hamming_window", 9) { window(ctx, {0.54, 0.46, 0.0}, true); }
T2O_SYMBOLIC("aten::blackman_window", 9) { window(ctx, {0.42, 0.5, 0.08}, false); }
