// aten::arange(end, ...), arange.start(start, end, ...), arange.start_step(start, end, step, ...)
// (the overload is told by the input count: 5, 6 or 7). Range needs opset 11 (opset11/arange.cpp);
// before, constant bounds give a constant tensor and run-time bounds are refused.
// Values are computed as PyTorch's kernel does: n = ceil((end - start) / step) in double, start +
// i * step (in int64 when every bound is an int), then cast to the output's dtype. Float bounds
// with an integer dtype: the kernel reads each bound as its accumulation type (int64, truncated
// toward zero) for the values; the length comes from the truncated bounds for int64, from the
// double bounds for the narrower integer types (arange(8.5, dtype=int64) has 8 elements, with
// dtype=int32 9).
#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "common/constants.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

struct Bounds {
  Value start, end, step;  // start/step invalid = 0/1
};

Bounds bounds(Ctx& ctx) {
  int32_t n = ctx.num_inputs();
  if (n == 5) return {Value(), ctx.input(0), Value()};
  if (n == 6) return {ctx.input(0), ctx.input(1), Value()};
  if (n == 7) return {ctx.input(0), ctx.input(1), ctx.input(2)};
  unsupported("aten::arange: overload with " + std::to_string(n) + " inputs");
}

}  // namespace

T2O_SYMBOLIC("aten::arange", 9) {
  Bounds b = bounds(ctx);
  for (const Value* v : {&b.start, &b.end, &b.step})
    if (v->valid() && !v->is_const())
      unsupported("aten::arange: bounds computed at run time need --opset 11 (Range)");
  t2o_dtype dt = output_dtype(ctx, 0, T2O_DTYPE_INT64);
  bool ints = true;
  for (const Value* v : {&b.start, &b.end, &b.step})
    if (v->valid() && v->kind() != T2O_KIND_INT && !(v->kind() == T2O_KIND_TENSOR && !is_float_dtype(v->dtype())))
      ints = false;
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
    if (d == 0) fail("aten::arange: step must be non-zero");
    int64_t n = dt == T2O_DTYPE_INT64 ? (int64_t)std::ceil((double)(e - s) / (double)d)
                                      : (int64_t)std::ceil((end - start) / step);
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
