// Special functions ONNX lacks, as element-wise arithmetic following PyTorch's CPU kernels (same
// branches, series lengths and working precision), so results agree to a few ulps:
//   aten::sinc(Tensor self) -> Tensor                  sin(pi x) / (pi x), 1 at 0
//   aten::i0(Tensor self) -> Tensor, special_i0        Cephes' Chebyshev series: |x| <= 8 (30 terms),
//                                                      |x| > 8 (25 terms, / sqrt|x|), times exp|x|
//   aten::erfinv(Tensor self) -> Tensor, special_erfinv rational first guess (central |y| <= 0.7,
//                                                      tails) + two Newton steps on Erf; +-1 -> +-inf,
//                                                      |y| > 1 -> NaN
//   aten::digamma(Tensor self) -> Tensor, special_digamma, special_psi
//                                                      reflection for x < 0 (pi / tan(pi frac(x))),
//                                                      recurrence up to x >= 10 (unrolled 10 steps),
//                                                      asymptotic series; 0 -> -+inf, negative
//                                                      integers -> NaN
//   aten::polygamma(int n, Tensor self) -> Tensor, special_polygamma(int n, Tensor self)
//                                                      n = 0: digamma; n = 1: trigamma (reflection
//                                                      below 0.5, 6 recurrence steps, asymptotic
//                                                      series); n >= 2: (-1)^(n+1) n! zeta(n+1, x)
//                                                      by Euler-Maclaurin in double: 25 direct terms
//                                                      then 12 correction terms (relative error
//                                                      below 1e-12 for x > -16; poles at x <= 0
//                                                      integers -> inf)
//   aten::lgamma(Tensor self) -> Tensor, special_gammaln
//                                                      Lanczos (g = 7, 9 terms) in double for
//                                                      x >= 0.5, reflection log(pi / |sin(pi x)|) -
//                                                      lgamma(1 - x) below (relative error ~1e-14
//                                                      in double; poles and +-inf -> +inf)
// Integer inputs compute in the default float type (the output's dtype); float16/bfloat16 in float.
// Series constants are Cephes' (Moshier), as in PyTorch's ATen/native/Math.h.
#include <torch2onnx/plugin.hpp>

#include <cmath>
#include <vector>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

const double kPi = 3.14159265358979323846;

// Element-wise expression builder over one dtype.
struct Ex {
  Ctx& ctx;
  t2o_dtype dt;
  Value c(double v) const { return ctx.scalar(dt, v); }
  Value add(const Value& a, const Value& b) const { return ctx.op("Add", {a, b}); }
  Value sub(const Value& a, const Value& b) const { return ctx.op("Sub", {a, b}); }
  Value mul(const Value& a, const Value& b) const { return ctx.op("Mul", {a, b}); }
  Value div(const Value& a, const Value& b) const { return ctx.op("Div", {a, b}); }
  Value f(const char* op, const Value& a) const { return ctx.op(op, {a}); }
  Value less(const Value& a, const Value& b) const { return ctx.op("Less", {a, b}); }
  Value greater(const Value& a, const Value& b) const { return ctx.op("Greater", {a, b}); }
  Value where(const Value& m, const Value& a, const Value& b) const { return ctx.op("Where", {m, a, b}); }
  Value and_(const Value& a, const Value& b) const { return ctx.op("And", {a, b}); }
  Value or_(const Value& a, const Value& b) const { return ctx.op("Or", {a, b}); }
  Value not_(const Value& a) const { return ctx.op("Not", {a}); }
  // a == b for floats at any opset (Equal takes floats from 11): neither less nor greater, not NaN.
  Value equal(const Value& a, const Value& b) const {
    return and_(not_(or_(less(a, b), greater(a, b))), not_(f("IsNaN", a)));
  }
  Value is_integer(const Value& x) const { return equal(x, f("Floor", x)); }
  Value cast(const Value& x, t2o_dtype to) const { return ctx.op("Cast", {x}, {Attr::i("to", to)}); }
  // Horner's rule, coefficients from the highest power down (Cephes' polevl).
  Value polevl(const Value& x, const std::vector<double>& coef) const {
    Value r = c(coef[0]);
    for (size_t i = 1; i < coef.size(); ++i) r = add(mul(r, x), c(coef[i]));
    return r;
  }
  // Clenshaw's recurrence for a Chebyshev series (Cephes' chbevl).
  Value chbevl(const Value& x, const std::vector<double>& coef) const {
    Value b0 = c(coef[0]), b1 = c(0.0), b2;
    for (size_t i = 1; i < coef.size(); ++i) {
      b2 = b1;
      b1 = b0;
      b0 = add(sub(mul(x, b1), b2), c(coef[i]));
    }
    return mul(c(0.5), sub(b0, b2));
  }
};

// The input as a floating tensor of the output's dtype; `work` is the dtype computed in.
struct FloatIn {
  Value x;
  t2o_dtype out, work;
};

FloatIn float_input(Ctx& ctx, const Value& v) {
  if (v.kind() != T2O_KIND_TENSOR) unsupported(ctx.kind() + ": input must be a tensor");
  t2o_dtype out = output_dtype(ctx, 0, is_float_dtype(v.dtype()) ? v.dtype() : T2O_DTYPE_FLOAT);
  if (!is_float_dtype(out)) fail(ctx.kind() + ": non-floating output type");
  t2o_dtype work = out == T2O_DTYPE_DOUBLE ? T2O_DTYPE_DOUBLE : T2O_DTYPE_FLOAT;
  return {cast_to(ctx, ctx.as_onnx(v), work), out, work};
}

void bind(Ctx& ctx, const FloatIn& in, Value y, t2o_dtype computed) {
  if (computed != in.out) y = ctx.op("Cast", {y}, {Attr::i("to", in.out)});
  ctx.set_output(0, y);
}

// ---- sinc ----
void sinc(Ctx& ctx) {
  FloatIn in = float_input(ctx, ctx.input(0));
  Ex e{ctx, in.work};
  Value px = e.mul(e.c(kPi), in.x);
  Value y = e.where(e.equal(in.x, e.c(0.0)), e.c(1.0), e.div(e.f("Sin", px), px));
  bind(ctx, in, y, in.work);
}

// ---- i0 ----
const std::vector<double> kI0A = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16, 1.71539128555513303061E-15,
    -1.16853328779934516808E-14, 7.67618549860493561688E-14, -4.85644678311192946090E-13, 2.95505266312963983461E-12,
    -1.72682629144155570723E-11, 9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8,  6.04699502254191894932E-8,  -2.67079385394061173391E-7, 1.11738753912010371815E-6,
    -4.41673835845875056359E-6,  1.64484480707288970893E-5,  -5.75419501008210370398E-5, 1.88502885095841655729E-4,
    -5.76375574538582365885E-4,  1.63947561694133579842E-3,  -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2,  4.93052842396707084878E-2,  -9.49010970480476444210E-2, 1.71620901522208775349E-1,
    -3.04682672343198398683E-1,  6.76795274409476084995E-1};
const std::vector<double> kI0B = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,  3.46122286769746109310E-17,
    -2.82762398051658348494E-16, -3.42548561967721913462E-16, 1.77256013305652638360E-15,  3.81168066935262242075E-15,
    -9.55484669882830764870E-15, -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
    7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11, -3.14991652796324136454E-11,
    1.18891471078464383424E-11,  4.94060238822496958910E-10,  3.39623202570838634515E-9,   2.26666899049817806459E-8,
    2.04891858946906374183E-7,   2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
    8.04490411014108831608E-1};

void i0(Ctx& ctx) {
  FloatIn in = float_input(ctx, ctx.input(0));
  Ex e{ctx, in.work};
  Value x = e.f("Abs", in.x);
  Value ex = e.f("Exp", x);
  Value small = e.mul(ex, e.chbevl(e.sub(e.div(x, e.c(2.0)), e.c(2.0)), kI0A));
  Value large = e.div(e.mul(ex, e.chbevl(e.sub(e.div(e.c(32.0), x), e.c(2.0)), kI0B)), e.f("Sqrt", x));
  bind(ctx, in, e.where(e.greater(x, e.c(8.0)), large, small), in.work);
}

// ---- erfinv ----
void erfinv(Ctx& ctx) {
  FloatIn in = float_input(ctx, ctx.input(0));
  Ex e{ctx, in.work};
  Value y = in.x, ya = e.f("Abs", in.x);
  Value z = e.mul(y, y);
  Value num = e.polevl(z, {-0.140543331, 0.914624893, -1.645349621, 0.886226899});
  Value dem = e.polevl(z, {0.012229801, -0.329097515, 1.442710462, -2.118377725, 1.0});
  Value central = e.div(e.mul(y, num), dem);
  Value zt = e.f("Sqrt", e.f("Neg", e.f("Log", e.div(e.sub(e.c(1.0), ya), e.c(2.0)))));
  Value num_t = e.f("Abs", e.polevl(zt, {1.641345311, 3.429567803, -1.624906493, -1.970840454}));
  Value dem_t = e.polevl(zt, {1.637067800, 3.543889200, 1.0});
  Value tail = e.div(e.where(e.less(y, e.c(0.0)), e.f("Neg", num_t), num_t), dem_t);  // copysign(num, y) / dem
  Value x = e.where(e.greater(ya, e.c(0.7)), tail, central);
  // The Newton constant as PyTorch forms it: T(2) / T(sqrt(pi)).
  double k = in.work == T2O_DTYPE_FLOAT ? (double)(2.0f / (float)std::sqrt(kPi)) : 2.0 / std::sqrt(kPi);
  for (int step = 0; step < 2; ++step) {
    Value deriv = e.mul(e.c(k), e.f("Exp", e.f("Neg", e.mul(x, x))));
    x = e.sub(x, e.div(e.sub(e.f("Erf", x), y), deriv));
  }
  Value inf = e.c(INFINITY);
  Value signed_inf = e.where(e.less(y, e.c(0.0)), e.f("Neg", inf), inf);
  x = e.where(e.equal(ya, e.c(1.0)), signed_inf, x);
  x = e.where(e.greater(ya, e.c(1.0)), e.c(NAN), x);
  bind(ctx, in, x, in.work);
}

// ---- digamma ----
// digamma(x) for x not a non-positive integer.
Value digamma_value(const Ex& e, const Value& x0) {
  Value zero = e.c(0.0), one = e.c(1.0);
  Value negative = e.less(x0, zero);
  // x < 0: digamma(1 - x) - pi / tan(pi * frac(x)), the tangent in double as PyTorch does.
  Value trunc = e.where(negative, e.f("Ceil", x0), e.f("Floor", x0));
  Ex d{e.ctx, T2O_DTYPE_DOUBLE};
  Value r = d.cast(e.sub(x0, trunc), T2O_DTYPE_DOUBLE);
  // tan as sin / cos: ONNX Runtime has no double Tan kernel.
  Value angle = d.mul(d.c(kPi), r);
  Value pi_over_tan = e.cast(d.div(d.mul(d.c(kPi), d.f("Cos", angle)), d.f("Sin", angle)), e.dt);
  Value x = e.where(negative, e.sub(one, x0), x0);
  // Recurrence up to x >= 10 (x > 0 here, so 10 steps always suffice).
  Value result = zero, ten = e.c(10.0);
  for (int i = 0; i < 10; ++i) {
    Value below = e.less(x, ten);
    result = e.where(below, e.sub(result, e.div(one, x)), result);
    x = e.where(below, e.add(x, one), x);
  }
  Value z = e.div(one, e.mul(x, x));
  Value series = e.mul(z, e.polevl(z, {8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
                                       -4.16666666666666666667E-3, 3.96825396825396825397E-3,
                                       -8.33333333333333333333E-3, 8.33333333333333333333E-2}));
  Value asym = e.sub(e.sub(e.add(result, e.f("Log", x)), e.div(e.c(0.5), x)), series);
  // x == 10 exactly after the recurrence: PyTorch uses the constant psi(10).
  asym = e.where(e.equal(x, ten), e.add(result, e.c(2.25175258906672110764)), asym);
  return e.where(negative, e.sub(asym, pi_over_tan), asym);
}

Value digamma_expr(const Ex& e, const Value& x) {
  Value zero = e.c(0.0);
  Value y = digamma_value(e, x);
  y = e.where(e.and_(e.less(x, zero), e.is_integer(x)), e.c(NAN), y);
  // +-0 -> copysign(inf, -x): 1/x tells the zero's sign.
  Value inf = e.c(INFINITY);
  Value at_zero = e.where(e.greater(e.div(e.c(1.0), x), zero), e.f("Neg", inf), inf);
  return e.where(e.equal(x, zero), at_zero, y);
}

void digamma(Ctx& ctx, const Value& v) {
  FloatIn in = float_input(ctx, v);
  Ex e{ctx, in.work};
  bind(ctx, in, digamma_expr(e, in.x), in.work);
}

// ---- polygamma ----
Value trigamma_expr(const Ex& e, const Value& x0) {
  Value one = e.c(1.0);
  Value reflect = e.less(x0, e.c(0.5));
  Value s = e.f("Sin", e.mul(e.c(e.dt == T2O_DTYPE_FLOAT ? (double)(float)kPi : kPi), x0));
  double pi2 = e.dt == T2O_DTYPE_FLOAT ? (double)((float)kPi * (float)kPi) : kPi * kPi;
  Value result = e.where(reflect, e.f("Neg", e.div(e.c(pi2), e.mul(s, s))), e.c(0.0));
  Value x = e.where(reflect, e.sub(one, x0), x0);
  for (int i = 0; i < 6; ++i) {
    result = e.add(result, e.div(one, e.mul(x, x)));
    x = e.add(x, one);
  }
  Value ixx = e.div(one, e.mul(x, x));
  Value inner = e.sub(e.c(1.0 / 30), e.mul(ixx, e.c(1.0 / 42)));
  inner = e.sub(e.c(1.0 / 6), e.mul(ixx, inner));
  Value corr = e.div(e.add(e.add(one, e.div(one, e.mul(e.c(2.0), x))), e.mul(ixx, inner)), x);
  result = e.add(result, corr);
  return e.where(reflect, e.f("Neg", result), result);
}

// Hurwitz zeta(s, q) for integer s >= 3, in double: 25 direct terms, then Euler-Maclaurin.
Value zeta_expr(const Ex& d, int64_t s, const Value& q) {
  const double bernoulli_denoms[12] = {12.0,
                                       -720.0,
                                       30240.0,
                                       -1209600.0,
                                       47900160.0,
                                       -1.8924375803183791606e9,
                                       7.47242496e10,
                                       -2.950130727918164224e12,
                                       1.1646782814350067249e14,
                                       -4.5979787224074726105e15,
                                       1.8152105401943546773e17,
                                       -7.1661652561756670113e18};
  Value neg_s = d.c(-(double)s);
  Value sum = d.ctx.op("Pow", {q, neg_s});
  Value a = q, b;
  for (int i = 0; i < 25; ++i) {
    a = d.add(a, d.c(1.0));
    b = d.ctx.op("Pow", {a, neg_s});
    sum = d.add(sum, b);
  }
  Value w = a;
  sum = d.add(sum, d.div(d.mul(b, w), d.c((double)s - 1.0)));
  sum = d.sub(sum, d.mul(d.c(0.5), b));
  double fa = 1.0, k = 0.0;
  for (int i = 0; i < 12; ++i) {
    fa *= (double)s + k;
    b = d.div(b, w);
    sum = d.add(sum, d.div(d.mul(d.c(fa), b), d.c(bernoulli_denoms[i])));
    k += 1.0;
    fa *= (double)s + k;
    b = d.div(b, w);
    k += 1.0;
  }
  return sum;
}

void polygamma(Ctx& ctx) {
  if (!ctx.input(0).is_const()) unsupported(ctx.kind() + ": argument 'n' must be constant");
  int64_t n = ctx.input(0).to_int();
  if (n < 0) fail(ctx.kind() + ": argument 'n'=" + std::to_string(n) + " must be non-negative");
  if (n == 0) return digamma(ctx, ctx.input(1));
  FloatIn in = float_input(ctx, ctx.input(1));
  Ex e{ctx, in.work};
  if (n == 1) return bind(ctx, in, trigamma_expr(e, in.x), in.work);
  if (n > 30) unsupported(ctx.kind() + ": argument 'n'=" + std::to_string(n) + " (n! overflows beyond 30)");
  Ex d{ctx, T2O_DTYPE_DOUBLE};
  Value q = d.cast(in.x, T2O_DTYPE_DOUBLE);
  double factorial = 1.0;
  for (int64_t i = 2; i <= n; ++i) factorial *= (double)i;
  Value y = d.mul(d.c((n % 2 ? 1.0 : -1.0) * factorial), zeta_expr(d, n + 1, q));
  // zeta has poles at non-positive integers q: +inf there, times the sign.
  Value pole = d.and_(d.not_(d.greater(q, d.c(0.0))), d.is_integer(q));
  y = d.where(pole, d.c((n % 2 ? 1.0 : -1.0) * INFINITY), y);
  bind(ctx, in, y, T2O_DTYPE_DOUBLE);
}

// ---- lgamma ----
Value lanczos_lgamma(const Ex& d, const Value& x) {
  const double g = 7.0;
  const double coef[9] = {0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
                          771.32342877765313,   -176.61502916214059,   12.507343278686905,
                          -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  Value z = d.sub(x, d.c(1.0));
  Value a = d.c(coef[0]);
  for (int i = 1; i < 9; ++i) a = d.add(a, d.div(d.c(coef[i]), d.add(z, d.c((double)i))));
  Value t = d.add(z, d.c(g + 0.5));
  Value half_log_2pi = d.c(0.5 * std::log(2 * kPi));
  return d.add(d.sub(d.add(half_log_2pi, d.mul(d.add(z, d.c(0.5)), d.f("Log", t))), t), d.f("Log", a));
}

void lgamma(Ctx& ctx) {
  FloatIn in = float_input(ctx, ctx.input(0));
  Ex d{ctx, T2O_DTYPE_DOUBLE};
  Value x = d.cast(in.x, T2O_DTYPE_DOUBLE);
  Value reflect = d.less(x, d.c(0.5));
  Value u = d.where(reflect, d.sub(d.c(1.0), x), x);
  Value lu = lanczos_lgamma(d, u);
  // |sin(pi x)| == |sin(pi (x - floor(x)))|, which keeps the argument small.
  Value frac = d.sub(x, d.f("Floor", x));
  Value log_reflect = d.f("Log", d.div(d.c(kPi), d.f("Abs", d.f("Sin", d.mul(d.c(kPi), frac)))));
  Value y = d.where(reflect, d.sub(log_reflect, lu), lu);
  Value inf = d.c(INFINITY);
  y = d.where(d.and_(d.not_(d.greater(x, d.c(0.0))), d.is_integer(x)), inf, y);  // poles
  y = d.where(d.greater(d.f("Abs", x), d.c(1.0e306)), inf, y);                     // +-inf
  bind(ctx, in, y, T2O_DTYPE_DOUBLE);
}

}  // namespace

T2O_SYMBOLIC("aten::sinc", 9) { sinc(ctx); }
T2O_SYMBOLIC("aten::special_sinc", 9) { sinc(ctx); }
T2O_SYMBOLIC("aten::i0", 9) { i0(ctx); }
T2O_SYMBOLIC("aten::special_i0", 9) { i0(ctx); }
T2O_SYMBOLIC("aten::erfinv", 9) { erfinv(ctx); }
T2O_SYMBOLIC("aten::special_erfinv", 9) { erfinv(ctx); }
T2O_SYMBOLIC("aten::digamma", 9) { digamma(ctx, ctx.input(0)); }
T2O_SYMBOLIC("aten::special_digamma", 9) { digamma(ctx, ctx.input(0)); }
T2O_SYMBOLIC("aten::special_psi", 9) { digamma(ctx, ctx.input(0)); }
T2O_SYMBOLIC("aten::polygamma", 9) { polygamma(ctx); }
T2O_SYMBOLIC("aten::special_polygamma", 9) { polygamma(ctx); }
T2O_SYMBOLIC("aten::lgamma", 9) { lgamma(ctx); }
T2O_SYMBOLIC("aten::special_gammaln", 9) { lgamma(ctx); }
