// Packed sequences in their padded form (core/src/prepare/packed_sequences.cpp rewrites
// aten::_pack_padded_sequence / aten::_pad_packed_sequence into these):
//
// t2o::pack_padded(Tensor input, Tensor lengths, bool batch_first) -> (Tensor, Tensor)
//   -> the input time-major [T, B, *] (Transpose when batch_first) and the int64 lengths [B]; the
//      recurrent ops take the lengths as sequence_lens (rnn.cpp).
// t2o::pad_packed(Tensor input, Tensor lengths, bool batch_first, float padding_value,
//                 int total_length) -> (Tensor, Tensor)
//   -> Gather of the first total_length steps (steps past the input's end read step 0), or of the
//      first max(lengths) steps when total_length is -1 (pad_packed_sequence without it); then
//      Where(step < length, x, padding_value) and the Transpose back when batch_first. The lengths
//      come out as given (int64), as pad_packed_sequence returns them.
// The steps 0..n-1 of a run-time n are a Range where the target has it (forms.hpp's kRange);
// before, the indices of a ConstantOfShape(n) of ones (NonZero).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// Swaps axes 0 and 1 of a tensor of rank `rank` (batch-first <-> time-major).
Value swap_batch_time(Ctx& ctx, const Value& x, int32_t rank) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[0], perm[1]);
  return ctx.op("Transpose", {x}, {Attr::ints("perm", perm)});
}

int32_t checked_rank(Ctx& ctx, const Value& x) { return (int32_t)known_rank(ctx, x, "input [T, B, *]", 2); }

// 0, 1, ..., n-1 for a 1-element int64 tensor n.
Value steps_of(Ctx& ctx, const Value& n) {
  if (has(ctx, feature::kRange))
    return ctx.op("Range", {ctx.scalar_i64(0), squeeze(ctx, n, {0}), ctx.scalar_i64(1)});
  int64_t one = 1;
  Value ones = ctx.op("ConstantOfShape", {n}, {Attr::tensor("value", ctx.tensor(T2O_DTYPE_INT64, {1}, &one, sizeof one))});
  return squeeze(ctx, ctx.op("NonZero", {ones}), {0});
}

}  // namespace

T2O_SYMBOLIC("t2o::pack_padded", 9) {
  Value input = ctx.input(0);
  int32_t rank = checked_rank(ctx, input);
  bool batch_first = ctx.input(2).to_bool();
  ctx.set_output(0, batch_first ? swap_batch_time(ctx, input, rank) : ctx.as_onnx(input));
  ctx.set_output(1, cast_to(ctx, ctx.as_onnx(ctx.input(1)), T2O_DTYPE_INT64));
}

T2O_SYMBOLIC("t2o::pad_packed", 9) {
  Value input = ctx.input(0);
  int32_t rank = checked_rank(ctx, input);
  Value lengths = cast_to(ctx, ctx.as_onnx(ctx.input(1)), T2O_DTYPE_INT64);
  bool batch_first = ctx.input(2).to_bool();
  Value padding_value = ctx.input(3);
  Value total_length = ctx.input(4);
  if (!total_length.is_const())
    unsupported(ctx.kind() + ": total_length computed at run time (give pad_packed_sequence a constant total_length)");
  int64_t total = total_length.to_int();
  t2o_dtype dt = input.dtype();

  Value steps, src = ctx.as_onnx(input), index;
  if (total >= 0) {
    std::vector<int64_t> positions;
    for (int64_t t = 0; t < total; ++t) positions.push_back(t);
    steps = ctx.const_i64(positions);
    index = steps;
    // Steps past the input's end (when it is shorter, or its length unknown) read step 0: they are
    // past every length, so the mask below replaces them.
    if (input.dim(0) < 0 || total > input.dim(0)) {
      Value inside = ctx.op("Less", {steps, dim_tensor(ctx, src, 0)});
      index = ctx.op("Where", {inside, steps, ctx.scalar_i64(0)});
    }
  } else {
    steps = steps_of(ctx, reduce(ctx, "ReduceMax", lengths, {0}, true));  // the longest length <= T
    index = steps;
  }
  Value x = ctx.op("Gather", {src, index}, {Attr::i("axis", 0)});
  std::vector<int64_t> feature_axes;
  for (int64_t a = 2; a < rank; ++a) feature_axes.push_back(a);
  Value mask = ctx.op("Less", {unsqueeze(ctx, steps, {1}), unsqueeze(ctx, lengths, {0})});  // [T, B]
  if (!feature_axes.empty()) mask = unsqueeze(ctx, mask, feature_axes);
  Value padded = ctx.op("Where", {mask, x, to_dtype(ctx, padding_value, dt)});
  ctx.set_output(0, batch_first ? swap_batch_time(ctx, padded, rank) : padded);
  ctx.set_output(1, lengths);
}
