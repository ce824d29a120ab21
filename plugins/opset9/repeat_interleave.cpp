// aten::repeat_interleave: each element (or slice along dim) repeated.
//   self_int(self, int repeats, dim=None, output_size=None): Unsqueeze after dim, Tile the new
//     axis, Reshape it into dim (dim=None flattens self first);
//   self_Tensor(self, Tensor repeats, ...): a constant repeats tensor becomes a constant Gather
//     index along dim (a 1-element tensor is the int form);
//   Tensor(repeats): a constant repeats tensor gives a constant result.
//   repeats computed at run time (a tensor input, x.size(0), ...): from opset 11, the Gather index
//     is built at run time: position p of the result reads the item i whose running sum of repeats
//     is the first one above p, i.e. i = count(cumsum(repeats) <= p) over p in Range(0, sum).
//     (torch.onnx 1.13 builds the result with a Loop from opset 13; this needs no Loop.)
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

std::vector<int64_t> const_repeats(Ctx& ctx, const Value& repeats) {
  std::vector<int64_t> reps = repeats.to_ints();
  for (auto v : reps)
    if (v < 0) fail(ctx.kind() + ": negative repeats " + str(reps));
  return reps;
}

// Index list [0]*reps[0] + [1]*reps[1] + ...
std::vector<int64_t> expand_index(const std::vector<int64_t>& reps) {
  std::vector<int64_t> idx;
  for (size_t i = 0; i < reps.size(); ++i) idx.insert(idx.end(), (size_t)reps[i], (int64_t)i);
  return idx;
}

// The int64 Gather index of repeats known only at run time: for `reps` (1-D int64, one per item)
// [0]*reps[0] + [1]*reps[1] + ... as count(cumsum(reps) <= p) for each position p < sum(reps).
// Negative repeats are not checked (PyTorch raises; the graph has no way to).
Value runtime_index(Ctx& ctx, const Value& reps) {
  require(ctx, feature::kCumSumRange, "repeats computed at run time");
  Value ends = ctx.op("CumSum", {reps, ctx.scalar_i64(0)});                  // [D]
  Value total = reduce(ctx, "ReduceSum", reps, {0}, false);                 // 0-d
  Value pos = ctx.op("Range", {ctx.scalar_i64(0), total, ctx.scalar_i64(1)});  // [T]
  // ends[i] <= p as Not(ends[i] > p): GreaterOrEqual/LessOrEqual only exist from 12.
  Value after = ctx.op("Greater", {unsqueeze(ctx, ends, {0}), unsqueeze(ctx, pos, {1})});  // [T, D]
  Value passed = ctx.op("Cast", {ctx.op("Not", {after})}, {Attr::i("to", T2O_DTYPE_INT64)});
  return reduce(ctx, "ReduceSum", passed, {1}, false);                      // [T]
}

// A run-time repeats value (an int, a 0-d/1-element or a 1-D tensor) as 1-D int64 of `items` entries
// (a single repeat count is broadcast to every item, as PyTorch does).
Value runtime_repeats(Ctx& ctx, const Value& repeats, const Value& items) {
  if (repeats.kind() == T2O_KIND_TENSOR && repeats.rank() > 1)
    fail(ctx.kind() + ": repeats must be 0-d or 1-D, got rank " + std::to_string(repeats.rank()));
  Value reps = ctx.op("Reshape", {cast_to(ctx, ctx.as_onnx(repeats), T2O_DTYPE_INT64), ctx.const_i64({-1})});
  return ctx.op("Expand", {reps, items});
}

}  // namespace

T2O_SYMBOLIC("aten::repeat_interleave", 9) {
  Value first = ctx.input(0);
  if (ctx.num_inputs() <= 2) {  // repeat_interleave.Tensor(repeats, output_size)
    if (!first.is_const()) {
      if (first.kind() == T2O_KIND_TENSOR && first.rank() != 1)
        fail(ctx.kind() + ": repeats must be 1-D, got rank " + std::to_string(first.rank()));
      return ctx.set_output(0, runtime_index(ctx, cast_to(ctx, ctx.as_onnx(first), T2O_DTYPE_INT64)));
    }
    std::vector<int64_t> idx = expand_index(const_repeats(ctx, first));
    return ctx.set_output(0, ctx.const_i64(idx));
  }
  Value x = first, repeats = ctx.input(1), dim = opt_input(ctx, 2);
  int64_t r = known_rank(ctx, x);
  Value in = ctx.as_onnx(x);
  int64_t axis = 0;
  if (!dim.valid()) {
    in = ctx.op("Reshape", {in, ctx.const_i64({-1})});
    r = 1;
  } else {
    if (!dim.is_const()) unsupported(ctx.kind() + ": argument 'dim' must be constant");
    axis = normalize_axis(ctx, dim.to_int(), r);
    if (r == 0) in = unsqueeze(ctx, in, {0}), r = 1;
  }
  if (!repeats.is_const()) {
    Value items = dims_tensor(ctx, in, {axis});  // [D]
    Value idx = runtime_index(ctx, runtime_repeats(ctx, repeats, items));
    return ctx.set_output(0, ctx.op("Gather", {in, idx}, {Attr::i("axis", axis)}));
  }
  std::vector<int64_t> reps = const_repeats(ctx, repeats);
  if (repeats.kind() == T2O_KIND_TENSOR && reps.size() != 1) {
    ctx.set_output(0, ctx.op("Gather", {in, ctx.const_i64(expand_index(reps))}, {Attr::i("axis", axis)}));
    return;
  }
  if (reps.size() != 1) fail(ctx.kind() + ": repeats " + str(reps));
  std::vector<int64_t> tiles((size_t)r + 1, 1);
  tiles[(size_t)axis + 1] = reps[0];
  Value tiled = ctx.op("Tile", {unsqueeze(ctx, in, {axis + 1}), ctx.const_i64(tiles)});
  // Reshape: dims before axis copied (0), axis merged with the repeats (-1), the rest given.
  std::vector<int64_t> head((size_t)axis, 0);
  head.push_back(-1);
  std::vector<int64_t> rest_axes;
  for (int64_t i = axis + 1; i < r; ++i) rest_axes.push_back(i);
  Value target = ctx.const_i64(head);
  if (!rest_axes.empty()) {
    // (dims of the flattened input when dim=None are never needed: it is 1-D)
    target = ctx.op("Concat", {target, dims_of(ctx, x, rest_axes)}, {Attr::i("axis", 0)});
  }
  ctx.set_output(0, ctx.op("Reshape", {tiled, target}));
}
