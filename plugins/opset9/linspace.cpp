// aten::linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None,
//     Device? device=None, bool? pin_memory=None) -> Tensor
// As PyTorch's CPU kernel: step = (end - start) / (steps - 1), the first steps/2 values are
// start + i * step and the others end - (steps - 1 - i) * step, computed in the output's type
// (integer outputs: start and end truncated to integers first, as the kernel reads them as its own
// type, then in double, then truncated). Constant arguments give a constant; run-time start/end give
// Mul/Add/Where on constant positions; a run-time `steps` needs Range (opset 11).
// aten::logspace(start, end, steps, float base=10., *, dtype, ...) is base ** (those values), the
// power taken in the same type, as PyTorch's kernel does. PyTorch 2.x's Tensor overloads
// (linspace/logspace.Tensor_Tensor, .Tensor_Scalar, .Scalar_Tensor: 0-d tensors for start/end) take
// the same path as run-time scalars.
#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "common/constants.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// base == 0: linspace; else logspace with that base.
template <typename T>
std::vector<double> linspace_values(double start, double end, int64_t steps, double base) {
  std::vector<double> out;
  auto power = [&](T x) { return base == 0 ? x : (T)std::pow((T)base, x); };
  if (steps == 1) return {(double)power((T)start)};
  T s = (T)start, e = (T)end;
  T step = (e - s) / (T)(steps - 1);
  int64_t halfway = steps / 2;
  for (int64_t i = 0; i < steps; ++i)
    out.push_back((double)power(i < halfway ? s + step * (T)i : e - step * (T)(steps - i - 1)));
  return out;
}

void linspace(Ctx& ctx, double base) {
  Value start = ctx.input(0), end = ctx.input(1), steps_arg = ctx.input(2);
  t2o_dtype dt = output_dtype(ctx, 0, T2O_DTYPE_FLOAT);
  // PyTorch computes in the output type, in double for integer outputs.
  t2o_dtype work = dt == T2O_DTYPE_FLOAT || dt == T2O_DTYPE_FLOAT16 || dt == T2O_DTYPE_BFLOAT16 ? T2O_DTYPE_FLOAT
                                                                                                : T2O_DTYPE_DOUBLE;
  for (const Value* v : {&start, &end})
    if (v->kind() == T2O_KIND_TENSOR && v->rank() != 0) fail("aten::linspace: start and end must be 0-d");
  if (start.is_const() && end.is_const() && steps_arg.is_const()) {
    int64_t steps = steps_arg.to_int();
    if (steps < 0) fail(ctx.kind() + ": argument 'steps'=" + std::to_string(steps) + " is negative");
    double s0 = start.to_float(), e0 = end.to_float();
    // An integer output reads start and end as its own type first (truncated toward zero).
    if (is_int_dtype(dt)) s0 = (double)(int64_t)s0, e0 = (double)(int64_t)e0;
    std::vector<double> v = work == T2O_DTYPE_FLOAT ? linspace_values<float>(s0, e0, steps, base)
                                                    : linspace_values<double>(s0, e0, steps, base);
    if (is_int_dtype(dt))
      for (auto& x : v) x = (double)(int64_t)x;  // truncation, as the kernel's static_cast
    return ctx.set_output(0, constant_of(ctx, dt, {steps}, v));
  }
  Value s = to_dtype(ctx, start, work), e = to_dtype(ctx, end, work);
  if (is_int_dtype(dt)) {  // start and end truncated to integers first, as above
    s = ctx.op("Cast", {to_dtype(ctx, start, T2O_DTYPE_INT64)}, {Attr::i("to", work)});
    e = ctx.op("Cast", {to_dtype(ctx, end, T2O_DTYPE_INT64)}, {Attr::i("to", work)});
  }
  Value idx, last, mask;
  if (steps_arg.is_const()) {
    int64_t steps = steps_arg.to_int();
    if (steps < 0) fail(ctx.kind() + ": argument 'steps'=" + std::to_string(steps) + " is negative");
    if (steps <= 1) {
      Value y = steps == 0 ? constant_of(ctx, work, {0}, {}, {}) : unsqueeze(ctx, s, {0});
      if (steps == 1 && base != 0) y = ctx.op("Pow", {ctx.scalar(work, base), y});
      return ctx.set_output(0, cast_to(ctx, typed(ctx, y, work, 1, {steps}), dt));
    }
    std::vector<double> positions, low;
    for (int64_t i = 0; i < steps; ++i) positions.push_back((double)i), low.push_back(i < steps / 2 ? 1 : 0);
    idx = constant_of(ctx, work, {steps}, positions);
    last = ctx.scalar(work, (double)(steps - 1));
    mask = ctx.op("Cast", {constant_of(ctx, T2O_DTYPE_UINT8, {steps}, low)}, {Attr::i("to", T2O_DTYPE_BOOL)});
  } else {
    require(ctx, feature::kRange, "argument 'steps' computed at run time");
    // last = max(steps - 1, 1) keeps step finite when steps is 1; the single value must then be
    // start (halfway = 0 would pick end).
    Value n = to_dtype(ctx, steps_arg, T2O_DTYPE_INT64);
    idx = ctx.op("Cast", {ctx.op("Range", {ctx.scalar_i64(0), n, ctx.scalar_i64(1)})}, {Attr::i("to", work)});
    Value nf = ctx.op("Cast", {n}, {Attr::i("to", work)});
    last = ctx.op("Max", {ctx.op("Sub", {nf, ctx.scalar(work, 1.0)}), ctx.scalar(work, 1.0)});
    Value halfway = ctx.op("Cast", {ctx.op("Div", {n, ctx.scalar_i64(2)})}, {Attr::i("to", work)});
    mask = ctx.op("Less", {idx, halfway});
    Value one = ctx.op("Equal", {n, ctx.scalar_i64(1)});
    mask = ctx.op("Or", {mask, one});
  }
  Value step = ctx.op("Div", {ctx.op("Sub", {e, s}), last});
  Value low = ctx.op("Add", {s, ctx.op("Mul", {step, idx})});
  Value high = ctx.op("Sub", {e, ctx.op("Mul", {step, ctx.op("Sub", {last, idx})})});
  Value y = ctx.op("Where", {mask, low, high});
  if (base != 0) y = ctx.op("Pow", {ctx.scalar(work, base), y});
  if (work != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
  ctx.set_output(0, y);
}

}  // namespace

// linspace(start, end, int steps, *, dtype, layout, device, pin_memory)
T2O_SYMBOLIC("aten::linspace", 9) { linspace(ctx, 0.0); }

// logspace(start, end, int steps, float base=10., *, dtype, layout, device, pin_memory)
T2O_SYMBOLIC("aten::logspace", 9) {
  const double base = ctx.input(3).to_float();
  if (base == 0) unsupported("aten::logspace: base 0");
  linspace(ctx, base);
}
