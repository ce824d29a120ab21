// aten::arange (end / start,end / start,end,step; told by the input count) -> Range (opset 11).
// Bounds may be computed at run time. Range runs in int64 when every bound is an int, else in
// double (PyTorch's accumulation type: same element count and values), then casts to the output's
// dtype.
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::arange", 11) {
  int32_t n = ctx.num_inputs();
  if (n < 5 || n > 7) unsupported("aten::arange: overload with " + std::to_string(n) + " inputs");
  Value start = n >= 6 ? ctx.input(0) : Value(), end = ctx.input(n >= 6 ? 1 : 0), step = n == 7 ? ctx.input(2) : Value();
  bool ints = true;
  for (const Value* v : {&start, &end, &step})
    if (v->valid() && v->kind() != T2O_KIND_INT && !(v->kind() == T2O_KIND_TENSOR && !is_float_dtype(v->dtype())))
      ints = false;
  t2o_dtype work = ints ? T2O_DTYPE_INT64 : T2O_DTYPE_DOUBLE;
  t2o_dtype dt = output_dtype(ctx, 0, T2O_DTYPE_INT64);
  Value s = start.valid() ? to_dtype(ctx, start, work) : ctx.scalar(work, 0);
  Value d = step.valid() ? to_dtype(ctx, step, work) : ctx.scalar(work, 1);
  Value e = to_dtype(ctx, end, work);
  // Bounds given as 1-element tensors (e.g. from x.size()) must be 0-d for Range.
  auto scalar = [&](Value v, const Value& orig) {
    if (orig.valid() && orig.kind() == T2O_KIND_TENSOR && orig.rank() != 0) return ctx.op("Reshape", {v, ctx.const_i64({})});
    return v;
  };
  Value y = ctx.op("Range", {scalar(s, start), scalar(e, end), scalar(d, step)});
  if (work != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
  ctx.set_output(0, y);
}
