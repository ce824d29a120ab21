// aten::slice_scatter(self, src, dim, start, end, step) and aten::select_scatter(self, src, dim, index):
// self with a slice (a single index) along dim replaced by src, cast to self's dtype as PyTorch's
// copy_ does. What in-place writes into views become after the host functionalizes them
// (x[a:b] = v), and callable directly.
// Unit steps -> Concat of the kept head, src and the kept tail (Slice); other steps on a static axis
// -> Scatter (opsets 9-10) / ScatterElements (11+) with the written positions as indices.
// Constant bounds on a dynamic axis: only bounds whose order is known without the axis length (one
// end open, or both of the same sign). Bounds computed at run time (x[i] = v, x[i:i+2] += v in a
// loop), or a step computed at run time (x[:y:z] = v): the written positions are computed at run
// time (Range for slices, from opset 11) and scattered along dim, on any axis.
// src of a lower or unknown rank (computed in a branch the example runs did not take, whose sizes
// they could not tell) is broadcast to the slice's (selected view's) shape first, as copy_ into
// the view does.
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "common/shape_ops.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

int64_t const_int(Ctx& ctx, const Value& v, const char* name) {
  if (!v.is_const() || v.kind() == T2O_KIND_TENSOR)
    unsupported(ctx.kind() + ": argument '" + name + "' computed at run time");
  return v.to_int();
}

// src broadcast to the shape of `view` (x's slice that src replaces).
Value broadcast_to(Ctx& ctx, const Value& src, const Value& view) {
  return ctx.op("Expand", {src, ctx.op("Shape", {view})});
}

// x with positions start, start+step, ... < end of `axis` replaced by `src` (cast; of x's rank, or
// broadcast to the slice's shape when `broadcast`).
void scatter_into(Ctx& ctx, const Value& x, const Value& src, bool broadcast, int64_t axis, int64_t start,
                  int64_t end, int64_t step) {
  if (step <= 0) unsupported(ctx.kind() + ": step=" + std::to_string(step) + " must be positive");
  int64_t D = x.dim((int32_t)axis);
  Value updates = src;
  if (D >= 0) {
    auto clampi = [&](int64_t v) { v = v < 0 ? v + D : v; return v < 0 ? 0 : v > D ? D : v; };
    start = clampi(start);
    end = std::max(clampi(end), start);
    int64_t n = (end - start + step - 1) / step;
    if (n == 0) return ctx.set_output(0, x);
    if (broadcast) updates = broadcast_to(ctx, src, slice(ctx, x, {axis}, {start}, {end}, {step}));
    if (step == 1) {
      std::vector<Value> parts;
      if (start > 0) parts.push_back(slice(ctx, x, {axis}, {0}, {start}));
      parts.push_back(updates);
      if (end < D) parts.push_back(slice(ctx, x, {axis}, {end}, {D}));
      if (parts.size() == 1) return ctx.set_output(0, updates);
      return ctx.set_output(0, ctx.op("Concat", parts, {Attr::i("axis", axis)}));
    }
    // Indices of the written positions, shaped [1, .., n, .., 1] and expanded to the updates' shape.
    std::vector<int64_t> positions, shape(x.rank(), 1);
    for (int64_t i = 0; i < n; ++i) positions.push_back(start + i * step);
    shape[axis] = n;
    Value index = ctx.op("Reshape", {ctx.const_i64(positions), ctx.const_i64(shape)});
    index = ctx.op("Expand", {index, shape_of(ctx, updates)});
    return ctx.set_output(0, scatter_elements(ctx, x, index, updates, axis));
  }
  if (step != 1) unsupported(ctx.kind() + ": step=" + std::to_string(step) + " on a dynamic axis");
  bool open_start = start == 0, open_end = end == kInt64Max;
  bool ordered = (start >= 0) == (end >= 0) && end >= start;
  if (!open_start && !open_end && !ordered)
    unsupported(ctx.kind() + ": bounds " + std::to_string(start) + ":" + std::to_string(end) +
                " on a dynamic axis (their order depends on its length)");
  if (broadcast) updates = broadcast_to(ctx, src, slice(ctx, x, {axis}, {start}, {end}));
  std::vector<Value> parts;
  if (!open_start) parts.push_back(slice(ctx, x, {axis}, {0}, {start}));
  parts.push_back(updates);
  if (!open_end) parts.push_back(slice(ctx, x, {axis}, {end}, {kInt64Max}));
  if (parts.size() == 1) return ctx.set_output(0, updates);
  ctx.set_output(0, ctx.op("Concat", parts, {Attr::i("axis", axis)}));
}

// A bound of a slice (or an index) computed at run time, as a 0-d int64: negative counts from the
// end of the axis, then clamped into [0, D] as Python's slicing does (clamp=false: an index, left).
Value runtime_bound(Ctx& ctx, const Value& v, const Value& x, int64_t axis, bool clamp) {
  Value b = v.valid() && v.kind() != T2O_KIND_NONE ? as_i64(ctx, v) : ctx.scalar_i64(kInt64Max);
  if (v.valid() && v.kind() == T2O_KIND_TENSOR) b = ctx.op("Reshape", {b, ctx.const_i64({})});
  Value D = dim_scalar(ctx, x, axis), zero = ctx.scalar_i64(0);
  // kInt64Max + D would overflow: only negative bounds get D added.
  b = ctx.op("Where", {ctx.op("Less", {b, zero}), ctx.op("Add", {b, D}), b});
  if (!clamp) return b;
  b = ctx.op("Where", {ctx.op("Less", {b, zero}), zero, b});
  return ctx.op("Where", {ctx.op("Greater", {b, D}), D, b});
}

// x with the positions `positions` (1-D int64, on `axis`) replaced by `updates` (rank of x).
void scatter_positions(Ctx& ctx, const Value& x, const Value& updates, int64_t axis, const Value& positions) {
  std::vector<int64_t> shape(x.rank(), 1);
  shape[axis] = -1;
  Value index = ctx.op("Reshape", {positions, ctx.const_i64(shape)});
  index = ctx.op("Expand", {index, shape_of(ctx, updates)});
  ctx.set_output(0, scatter_elements(ctx, x, index, updates, axis));
}

bool runtime(const Value& v) { return v.valid() && v.kind() != T2O_KIND_NONE && !v.is_const(); }

}  // namespace

T2O_SYMBOLIC("aten::slice_scatter", 9) {
  Value x = ctx.input(0), src = ctx.input(1);
  int64_t r = x.rank();
  if (r < 1) unsupported(ctx.kind() + ": input must have a known rank >= 1");
  if (src.kind() != T2O_KIND_TENSOR || src.rank() > r)
    unsupported(ctx.kind() + ": src must be a tensor of at most self's rank");
  bool broadcast = src.rank() != r;  // lower, or unknown (-1)
  Value dim = opt_input(ctx, 2), start = opt_input(ctx, 3), end = opt_input(ctx, 4), step = opt_input(ctx, 5);
  int64_t axis = normalize_axis(ctx, dim.valid() ? const_int(ctx, dim, "dim") : 0, r);
  if (runtime(start) || runtime(end) || runtime(step)) {
    Value st;  // 0-d int64; PyTorch refuses a step <= 0 when it slices
    if (runtime(step)) {
      require(ctx, feature::kRange, "a step computed at run time");
      st = as_i64(ctx, step);
      if (step.kind() == T2O_KIND_TENSOR) st = ctx.op("Reshape", {st, ctx.const_i64({})});
    } else {
      int64_t c = step.valid() ? const_int(ctx, step, "step") : 1;
      if (c <= 0) unsupported(ctx.kind() + ": step=" + std::to_string(c) + " must be positive");
      require(ctx, feature::kRange, "bounds computed at run time");
      st = ctx.scalar_i64(c);
    }
    Value s = start.valid() && start.kind() != T2O_KIND_NONE ? runtime_bound(ctx, start, x, axis, true) : ctx.scalar_i64(0);
    Value e = runtime_bound(ctx, end, x, axis, true);
    Value positions = ctx.op("Range", {s, e, st});
    Value updates = to_dtype(ctx, src, x.dtype());
    if (broadcast) updates = broadcast_to(ctx, updates, ctx.op("Gather", {x, positions}, {Attr::i("axis", axis)}));
    return scatter_positions(ctx, x, updates, axis, positions);
  }
  scatter_into(ctx, x, to_dtype(ctx, src, x.dtype()), broadcast, axis, start.valid() ? const_int(ctx, start, "start") : 0,
               end.valid() ? const_int(ctx, end, "end") : kInt64Max, step.valid() ? const_int(ctx, step, "step") : 1);
}

T2O_SYMBOLIC("aten::select_scatter", 9) {
  Value x = ctx.input(0), src = ctx.input(1);
  int64_t r = x.rank();
  if (r < 1) unsupported(ctx.kind() + ": input must have a known rank >= 1");
  if (src.kind() != T2O_KIND_TENSOR || src.rank() > r - 1)
    unsupported(ctx.kind() + ": src must be a tensor of rank at most " + std::to_string(r - 1));
  int64_t axis = normalize_axis(ctx, const_int(ctx, ctx.input(2), "dim"), r);
  Value value = to_dtype(ctx, src, x.dtype());
  if (src.rank() != r - 1) {  // lower or unknown: broadcast to the selected view's shape
    std::vector<int64_t> kept;
    for (int64_t a = 0; a < r; ++a)
      if (a != axis) kept.push_back(a);
    value = kept.empty() ? ctx.op("Reshape", {value, ctx.const_i64({})})
                         : ctx.op("Expand", {value, dims_of(ctx, x, kept)});
  }
  if (runtime(ctx.input(3))) {  // one position: Scatter at every opset
    Value i = runtime_bound(ctx, ctx.input(3), x, axis, false);
    return scatter_positions(ctx, x, unsqueeze(ctx, value, {axis}), axis, unsqueeze(ctx, i, {0}));
  }
  int64_t index = const_int(ctx, ctx.input(3), "index");
  int64_t D = x.dim((int32_t)axis);
  if (D >= 0 && (index < -D || index >= D))
    fail(ctx.kind() + ": index " + std::to_string(index) + " out of range for a dim of size " + std::to_string(D));
  if (D >= 0 && index < 0) index += D;
  int64_t end = index == -1 ? kInt64Max : index + 1;  // the last item of a dynamic axis
  scatter_into(ctx, x, unsqueeze(ctx, value, {axis}), false, axis, index, end, 1);
}
