// aten::repeat_interleave: each element (or slice along dim) repeated.
//   self_int(self, int repeats, dim=None, output_size=None): Unsqueeze after dim, Tile the new
//     axis, Reshape it into dim (dim=None flattens self first);
//   self_Tensor(self, Tensor repeats, ...): a constant repeats tensor becomes a constant Gather
//     index along dim (a 1-element tensor is the int form);
//   Tensor(repeats): a constant repeats tensor gives a constant result.
// Repeats computed at run time are refused (data-dependent output size).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

std::vector<int64_t> const_repeats(Ctx& ctx, const Value& repeats) {
  if (!repeats.is_const()) unsupported(ctx.kind() + ": repeats computed at run time");
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

}  // namespace

T2O_SYMBOLIC("aten::repeat_interleave", 9) {
  Value first = ctx.input(0);
  if (ctx.num_inputs() <= 2) {  // repeat_interleave.Tensor(repeats, output_size)
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
