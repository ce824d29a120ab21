// Cumulative ops ONNX <= 17 lacks (CumProd is opset 26), over a static axis of size n:
//   aten::cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
//   aten::logcumsumexp(Tensor self, int dim) -> Tensor
// x is unsqueezed to (..., i, j, ...) against a constant lower-triangular mask (j <= i); the
// entries outside the prefix are replaced by the neutral element (1, or -inf) and reduced over j:
// ReduceProd, or the max-shifted log(sum(exp(x - max))) + max (a max of +-inf shifts by 0 so
// +inf/-inf prefixes give +inf/-inf as in PyTorch). n^2 elements per row: fine for the small axes
// these ops are used on.
// cumprod over a dynamic axis (its size known only at run time): a Scan along that axis (Scan-9's
// scan_input_axes/scan_output_axes) carrying the running product, initially ones of the other dims,
// multiplied by each slice in turn as PyTorch's kernel does: exact for zeros, negatives, +-inf and
// NaN, O(n) memory; an empty input is its own result (an If around the Scan). logcumsumexp over a
// dynamic axis is still refused.
#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "common/constants.hpp"
#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

struct Prefix {
  Value masked;  // (..., n, n, ...): x[..., j, ...] at [i, j] for j <= i, else `neutral`
  int64_t axis;  // i at axis, j at axis + 1
};

Prefix prefix(Ctx& ctx, const Value& x, const Value& in, double neutral, t2o_dtype dt) {
  int64_t r = x.rank();
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  int64_t n = x.dim((int32_t)axis);
  if (n < 0) unsupported(ctx.kind() + ": a dynamic axis (dim " + std::to_string(axis) + ")");
  std::vector<int64_t> tri((size_t)(n * n), 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) tri[(size_t)(i * n + j)] = 1;
  std::vector<int64_t> mask_shape{n, n};
  for (int64_t k = axis + 1; k < r; ++k) mask_shape.push_back(1);
  Value mask = ctx.op("Cast", {constant_of(ctx, T2O_DTYPE_UINT8, mask_shape, {}, tri)}, {Attr::i("to", T2O_DTYPE_BOOL)});
  Value xe = unsqueeze(ctx, in, {axis});
  return {ctx.op("Where", {mask, xe, ctx.scalar(dt, neutral)}), axis};
}

// The running product of `in` (dtype `work`, rank r >= 1) along a dynamic `axis`. ONNX Runtime's
// Scan cannot slice an empty tensor (an error, or a division by zero for an empty other dim): an
// empty input, whose cumprod is itself, takes the other branch of an If.
Value scan_cumprod(Ctx& ctx, const Value& x, const Value& in, int64_t axis, t2o_dtype work) {
  int64_t r = x.rank();
  std::vector<int64_t> others;
  for (int64_t i = 0; i < r; ++i)
    if (i != axis) others.push_back(i);
  Value empty = ctx.op("Equal", {ctx.op("Size", {in}), ctx.scalar_i64(0)});
  ctx.subgraph_begin("cumprod_empty");
  Value then_branch = ctx.subgraph_end({ctx.op("Identity", {in})});

  ctx.subgraph_begin("cumprod_scan");
  Value one = ctx.scalar(work, 1.0);
  Value init = others.empty() ? one : ctx.op("Expand", {one, dims_of(ctx, x, others)});
  ctx.subgraph_begin("cumprod_body");
  Value acc = ctx.subgraph_input(T2O_KIND_TENSOR, work, (int32_t)(r - 1));
  Value slice = ctx.subgraph_input(T2O_KIND_TENSOR, work, (int32_t)(r - 1));
  Value next = ctx.op("Mul", {acc, slice});
  Value body = ctx.subgraph_end({next, ctx.op("Identity", {next})});
  auto outs = ctx.op_n("Scan", {init, in}, 2,
                       {Attr::graph("body", body), Attr::i("num_scan_inputs", 1), Attr::ints("scan_input_axes", {axis}),
                        Attr::ints("scan_output_axes", {axis})});
  Value else_branch = ctx.subgraph_end({outs[1]});
  return ctx.op("If", {empty}, {Attr::graph("then_branch", then_branch), Attr::graph("else_branch", else_branch)});
}

}  // namespace

T2O_SYMBOLIC("aten::cumprod", 9) {
  Value x = ctx.input(0);
  known_rank(ctx, x);
  t2o_dtype dt = output_dtype(ctx, 0, x.dtype());
  // ReduceProd and Where work in int32/int64/float/double: narrower types are computed wider.
  t2o_dtype work = dt;
  if (dt == T2O_DTYPE_FLOAT16 || dt == T2O_DTYPE_BFLOAT16) work = T2O_DTYPE_FLOAT;
  else if (is_int_dtype(dt) || dt == T2O_DTYPE_BOOL) work = T2O_DTYPE_INT64;
  Value in = cast_to(ctx, ctx.as_onnx(x), work);
  if (x.rank() == 0) return ctx.set_output(0, cast_to(ctx, in, dt));
  if (!ctx.input(1).is_const()) unsupported("aten::cumprod: argument 'dim' computed at run time");
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), x.rank());
  Value y;
  if (x.dim((int32_t)axis) < 0) {
    y = scan_cumprod(ctx, x, in, axis, work);
  } else {
    Prefix p = prefix(ctx, x, in, 1.0, work);
    y = reduce(ctx, "ReduceProd", p.masked, {p.axis + 1}, false);
  }
  if (work != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
  ctx.set_output(0, y);
}

T2O_SYMBOLIC("aten::logcumsumexp", 9) {
  Value x = ctx.input(0);
  known_rank(ctx, x);
  t2o_dtype dt = x.dtype();
  if (!is_float_dtype(dt)) fail("aten::logcumsumexp: input of a non-floating element type");
  t2o_dtype work = dt == T2O_DTYPE_DOUBLE ? dt : T2O_DTYPE_FLOAT;
  Value in = cast_to(ctx, ctx.as_onnx(x), work);
  if (x.rank() == 0) return ctx.set_output(0, x);
  Prefix p = prefix(ctx, x, in, -INFINITY, work);
  Value m = reduce(ctx, "ReduceMax", p.masked, {p.axis + 1}, true);
  // A non-finite max (+-inf, NaN) shifts by 0 (finite: m - m == 0, not NaN).
  Value finite = ctx.op("Not", {ctx.op("IsNaN", {ctx.op("Sub", {m, m})})});
  Value shift = ctx.op("Where", {finite, m, ctx.scalar(work, 0.0)});
  Value sum = reduce(ctx, "ReduceSum", ctx.op("Exp", {ctx.op("Sub", {p.masked, shift})}), {p.axis + 1}, false);
  Value y = ctx.op("Add", {ctx.op("Log", {sum}), squeeze(ctx, shift, {p.axis + 1})});
  if (work != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
  ctx.set_output(0, y);
}
