// aten::arange (end / start,end / start,end,step; told by the input count: 5, 6, 7, and 2 or 4 for
// the out= overloads arange.out(end, out) and arange.start_out(start, end, step, out), whose result
// has out's dtype) -> Range (opset 11).
// Bounds may be computed at run time. Range runs in int64 when every bound is an int, else in
// double (PyTorch's accumulation type: same element count and values), then casts to the output's
// dtype.
#include <torch2onnx/plugin.hpp>

#include "common/torch_semantics.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::arange", 11) {
  int32_t n = ctx.num_inputs();
  if (n != 2 && n != 4 && (n < 5 || n > 7)) unsupported("aten::arange: overload with " + std::to_string(n) + " inputs");
  bool ranged = n == 4 || n >= 6;  // start and end given
  Value start = ranged ? ctx.input(0) : Value(), end = ctx.input(ranged ? 1 : 0),
        step = n == 4 || n == 7 ? ctx.input(2) : Value();
  bool ints = true;
  for (const Value* v : {&start, &end, &step})
    if (v->valid() && v->kind() != T2O_KIND_INT && !(v->kind() == T2O_KIND_TENSOR && !is_float_dtype(v->dtype())))
      ints = false;
  t2o_dtype work = ints ? T2O_DTYPE_INT64 : T2O_DTYPE_DOUBLE;
  t2o_dtype dt = output_dtype(ctx, 0, T2O_DTYPE_INT64);
  // Bounds given as 1-element tensors (e.g. from x.size()) must be 0-d for Range.
  auto scalar = [&](Value v, const Value& orig) {
    if (orig.valid() && orig.kind() == T2O_KIND_TENSOR && orig.rank() != 0) return ctx.op("Reshape", {v, ctx.const_i64({})});
    return v;
  };
  if (!ints && is_int_dtype(dt)) {
    // Float bounds, integer dtype: PyTorch's kernel takes the values from the bounds read as int64
    // (truncated toward zero, as Cast does), start + i * step; the length from the double bounds,
    // ceil((end - start) / step), for narrower integer types and from PyTorch 2.14 for int64 too
    // (common/torch_semantics.hpp), from the truncated bounds for int64 before.
    auto as = [&](const Value& v, t2o_dtype t, double dflt) {
      return v.valid() ? scalar(to_dtype(ctx, v, t), v) : ctx.scalar(t, dflt);
    };
    Value s = as(start, T2O_DTYPE_INT64, 0), e = as(end, T2O_DTYPE_INT64, 0), d = as(step, T2O_DTYPE_INT64, 1);
    Value y;
    if (dt == T2O_DTYPE_INT64 && !follows(ctx, torch_change::kArangeDoubleLength)) {
      y = ctx.op("Range", {s, e, d});
    } else {
      Value sd = as(start, T2O_DTYPE_DOUBLE, 0), ed = as(end, T2O_DTYPE_DOUBLE, 0), dd = as(step, T2O_DTYPE_DOUBLE, 1);
      // ceil(q) as trunc(q) + (trunc(q) < q): ONNX Runtime's Ceil may lack a double kernel.
      Value q = ctx.op("Div", {ctx.op("Sub", {ed, sd}), dd});
      Value t = ctx.op("Cast", {q}, {Attr::i("to", T2O_DTYPE_INT64)});
      Value up = ctx.op("Less", {ctx.op("Cast", {t}, {Attr::i("to", T2O_DTYPE_DOUBLE)}), q});
      Value n = ctx.op("Add", {t, ctx.op("Cast", {up}, {Attr::i("to", T2O_DTYPE_INT64)})});
      Value i = ctx.op("Range", {ctx.scalar_i64(0), n, ctx.scalar_i64(1)});
      y = ctx.op("Add", {s, ctx.op("Mul", {i, d})});
    }
    return ctx.set_output(0, ctx.op("Cast", {y}, {Attr::i("to", dt)}));
  }
  Value s = start.valid() ? to_dtype(ctx, start, work) : ctx.scalar(work, 0);
  Value d = step.valid() ? to_dtype(ctx, step, work) : ctx.scalar(work, 1);
  Value e = to_dtype(ctx, end, work);
  Value y = ctx.op("Range", {scalar(s, start), scalar(e, end), scalar(d, step)});
  if (work != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
  ctx.set_output(0, y);
}
