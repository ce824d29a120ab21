// aten::arange(end, ...), arange.start(start, end, ...), arange.start_step(start, end, step, ...)
// and the out= overloads arange.out(end, out), arange.start_out(start, end, step, out), whose
// result has out's dtype (the overload is told by the input count: 5, 6, 7, 2 or 4).
// Constant bounds give a constant tensor. Bounds computed at run time, before Range (opset 11,
// opset11/arange.cpp), take torch.onnx's opset-9 form: the indices of ConstantOfShape([n]) ones
// (NonZero) are 0..n-1, then start + i * step.
// Values are computed as PyTorch's kernel does: n = ceil((end - start) / step) in double, start +
// i * step (in int64 when every bound is an int), then cast to the output's dtype. Float bounds
// with an integer dtype: the kernel reads each bound as its accumulation type (int64, truncated
// toward zero) for the values; the length comes from the double bounds for the narrower integer
// types and, until PyTorch 2.14 (common/torch_semantics.hpp), from the truncated bounds for int64
// (arange(8.5, dtype=int64) has 8 elements there, 9 from 2.14 and with dtype=int32).
#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "common/constants.hpp"
#include "common/torch_semantics.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

struct Bounds {
  Value start, end, step;  // start/step invalid = 0/1
};

Bounds bounds(Ctx& ctx) {
  int32_t n = ctx.num_inputs();
  if (n == 5 || n == 2) return {Value(), ctx.input(0), Value()};
  if (n == 4) return {ctx.input(0), ctx.input(1), ctx.input(2)};
  if (n == 6) return {ctx.input(0), ctx.input(1), Value()};
  if (n == 7) return {ctx.input(0), ctx.input(1), ctx.input(2)};
  unsupported("aten::arange: overload with " + std::to_string(n) + " inputs");
}

// A bound as a 0-d tensor of dtype t (dflt when absent; a 1-element tensor reshaped to 0-d).
Value bound(Ctx& ctx, const Value& v, t2o_dtype t, double dflt) {
  if (!v.valid()) return ctx.scalar(t, dflt);
  Value x = to_dtype(ctx, v, t);
  if (v.kind() == T2O_KIND_TENSOR && v.rank() != 0) x = ctx.op("Reshape", {x, ctx.const_i64({})});
  return x;
}

// The element count ceil(q), at least 0, as a 0-d int64, for a 0-d double q: trunc(q) + (trunc(q) <
// q), as ONNX Runtime may lack a double Ceil; Where of Less, as Max takes int64 only from opset 12.
Value count_of(Ctx& ctx, const Value& q) {
  Value t = ctx.op("Cast", {q}, {Attr::i("to", T2O_DTYPE_INT64)});
  Value up = ctx.op("Less", {ctx.op("Cast", {t}, {Attr::i("to", T2O_DTYPE_DOUBLE)}), q});
  Value n = ctx.op("Add", {t, ctx.op("Cast", {up}, {Attr::i("to", T2O_DTYPE_INT64)})});
  Value zero = ctx.scalar_i64(0);
  return ctx.op("Where", {ctx.op("Less", {n, zero}), zero, n});
}

// 0, 1, ..., n-1 (int64 [n]) without Range: the indices of ConstantOfShape([n]) ones.
Value steps_of(Ctx& ctx, const Value& n) {
  Value ones = ctx.op("ConstantOfShape", {ctx.op("Reshape", {n, ctx.const_i64({1})})},
                      {Attr::tensor("value", ctx.const_i64({1}))});
  return ctx.op("Reshape", {ctx.op("NonZero", {ones}), ctx.const_i64({-1})});
}

// (end - start) / step in double, from bounds of dtype t.
Value quotient(Ctx& ctx, const Value& s, const Value& e, const Value& d) {
  auto dbl = [&](const Value& v) { return ctx.op("Cast", {v}, {Attr::i("to", T2O_DTYPE_DOUBLE)}); };
  return ctx.op("Div", {dbl(ctx.op("Sub", {e, s})), dbl(d)});
}

// Bounds computed at run time: start + i * step for i in 0..n-1, cast to dt.
Value run_time_arange(Ctx& ctx, const Bounds& b, bool ints, t2o_dtype dt) {
  Value y;
  if (ints || is_int_dtype(dt)) {
    // int64 values (float bounds truncated toward zero, as Cast does, for an integer dtype)
    Value s = bound(ctx, b.start, T2O_DTYPE_INT64, 0), e = bound(ctx, b.end, T2O_DTYPE_INT64, 0),
          d = bound(ctx, b.step, T2O_DTYPE_INT64, 1);
    Value q = ints || (dt == T2O_DTYPE_INT64 && !follows(ctx, torch_change::kArangeDoubleLength))
                  ? quotient(ctx, s, e, d)
                  : quotient(ctx, bound(ctx, b.start, T2O_DTYPE_DOUBLE, 0), bound(ctx, b.end, T2O_DTYPE_DOUBLE, 0),
                             bound(ctx, b.step, T2O_DTYPE_DOUBLE, 1));
    y = ctx.op("Add", {s, ctx.op("Mul", {steps_of(ctx, count_of(ctx, q)), d})});
  } else {
    Value s = bound(ctx, b.start, T2O_DTYPE_DOUBLE, 0), e = bound(ctx, b.end, T2O_DTYPE_DOUBLE, 0),
          d = bound(ctx, b.step, T2O_DTYPE_DOUBLE, 1);
    Value i = ctx.op("Cast", {steps_of(ctx, count_of(ctx, quotient(ctx, s, e, d)))}, {Attr::i("to", T2O_DTYPE_DOUBLE)});
    y = ctx.op("Add", {s, ctx.op("Mul", {i, d})});
  }
  return ctx.op("Cast", {y}, {Attr::i("to", dt)});
}

}  // namespace

T2O_SYMBOLIC("aten::arange", 9) {
  Bounds b = bounds(ctx);
  t2o_dtype dt = output_dtype(ctx, 0, T2O_DTYPE_INT64);
  bool ints = true;
  for (const Value* v : {&b.start, &b.end, &b.step})
    if (v->valid() && v->kind() != T2O_KIND_INT && !(v->kind() == T2O_KIND_TENSOR && !is_float_dtype(v->dtype())))
      ints = false;
  for (const Value* v : {&b.start, &b.end, &b.step})
    if (v->valid() && !v->is_const()) return ctx.set_output(0, run_time_arange(ctx, b, ints, dt));
  if (ints) {
    int64_t start = b.start.valid() ? b.start.to_int() : 0, end = b.end.to_int(),
            step = b.step.valid() ? b.step.to_int() : 1;
    if (step == 0) fail("aten::arange: step must be non-zero");
    int64_t n = (int64_t)std::ceil((double)(end - start) / (double)step);
    std::vector<int64_t> values;
    for (int64_t i = 0; i < n; ++i) values.push_back(start + i * step);
    return ctx.set_output(0, constant_of(ctx, dt, {(int64_t)values.size()}, {}, values));
  }
  double start = b.start.valid() ? b.start.to_float() : 0.0, end = b.end.to_float(),
         step = b.step.valid() ? b.step.to_float() : 1.0;
  if (is_int_dtype(dt)) {
    int64_t s = (int64_t)start, e = (int64_t)end, d = (int64_t)step;  // truncation, as Scalar::to<int64_t>
    bool double_length = dt != T2O_DTYPE_INT64 || follows(ctx, torch_change::kArangeDoubleLength);
    // From 2.14 a step that truncates to 0 repeats start; before, PyTorch refused it.
    if (step == 0 || (d == 0 && !follows(ctx, torch_change::kArangeDoubleLength)))
      fail("aten::arange: step must be non-zero");
    int64_t n = double_length ? (int64_t)std::ceil((end - start) / step)
                              : (int64_t)std::ceil((double)(e - s) / (double)d);
    std::vector<int64_t> values;
    for (int64_t i = 0; i < n; ++i) values.push_back(s + i * d);
    return ctx.set_output(0, constant_of(ctx, dt, {(int64_t)values.size()}, {}, values));
  }
  if (step == 0) fail("aten::arange: step must be non-zero");
  int64_t n = (int64_t)std::ceil((end - start) / step);
  std::vector<double> values;
  for (int64_t i = 0; i < n; ++i) values.push_back(start + (double)i * step);
  ctx.set_output(0, constant_of(ctx, dt, {(int64_t)values.size()}, values));
}
