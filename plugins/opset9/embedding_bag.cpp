// aten::embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq,
//     int mode, bool sparse, Tensor? per_sample_weights, bool include_last_offset, int? padding_idx)
//     -> (Tensor, Tensor, Tensor, Tensor)
// aten::embedding_bag(... the same without padding_idx)
// Only the first output (the bags) is converted; the auxiliary outputs (offset2bag, bag_size,
// max_indices, used by autograd) are left unbound: a model that reads them fails with a message.
// Rows = Gather(weight, indices) (n, D), scaled by per_sample_weights (mode sum only). Bag b holds
// positions offsets[b] <= i < offsets[b+1] (the last bag ends at n, or at the last offset with
// include_last_offset), minus entries equal to padding_idx: a (B, n) membership mask, then
//   sum: ReduceSum over i of Where(member, rows, 0)
//   mean: sum / max(members, 1)                    (an empty bag gives 0, as PyTorch)
//   max: ReduceMax of Where(member, rows, -inf), 0 for an empty bag
// Offsets may be computed at run time; F.embedding_bag's 2-D input reaches TorchScript as 1-D
// indices with arange offsets.
#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "common/constants.hpp"
#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

enum Mode { kSum = 0, kMean = 1, kMax = 2 };

void embedding_bag(Ctx& ctx) {
  Value weight = ctx.input(0), indices = ctx.input(1), offsets = ctx.input(2);
  if (!ctx.input(4).is_const()) unsupported("aten::embedding_bag: argument 'mode' must be constant");
  int64_t mode = ctx.input(4).to_int();
  if (mode < 0 || mode > 2) fail("aten::embedding_bag: argument 'mode'=" + std::to_string(mode));
  Value psw = opt_input(ctx, 6);
  bool include_last = ctx.input(7).to_bool();
  Value pad = opt_input(ctx, 8);
  if (indices.rank() != 1 || offsets.rank() != 1)
    unsupported("aten::embedding_bag: indices and offsets must be 1-D (ranks " + std::to_string(indices.rank()) +
                ", " + std::to_string(offsets.rank()) + ")");
  if (psw.valid() && mode != kSum) fail("aten::embedding_bag: per_sample_weights need mode='sum'");
  if (weight.rank() != 2) fail("aten::embedding_bag: weight must be 2-D");
  t2o_dtype dt = weight.dtype();
  Value idx = as_i64(ctx, indices);
  Value rows = ctx.op("Gather", {ctx.as_onnx(weight), nonneg_index(ctx, indices, weight, 0)}, {Attr::i("axis", 0)});
  if (psw.valid()) rows = ctx.op("Mul", {rows, unsqueeze(ctx, to_dtype(ctx, psw, dt), {1})});
  // Positions 0..n-1 and bag bounds.
  int64_t n = indices.dim(0);
  Value pos;
  if (n >= 0) {
    std::vector<int64_t> p;
    for (int64_t i = 0; i < n; ++i) p.push_back(i);
    pos = ctx.const_i64(p);
  } else {
    require(ctx, feature::kRange, "a dynamic number of indices");
    pos = ctx.op("Range", {ctx.scalar_i64(0), dim_tensor(ctx, indices, 0), ctx.scalar_i64(1)});
  }
  Value off = as_i64(ctx, offsets);
  Value starts, ends;
  if (include_last) {
    starts = slice(ctx, off, {0}, {0}, {-1});
    ends = slice(ctx, off, {0}, {1}, {kInt64Max});
  } else {
    starts = off;
    Value total = n >= 0 ? ctx.const_i64({n}) : unsqueeze(ctx, dim_tensor(ctx, indices, 0), {0});
    ends = ctx.op("Concat", {slice(ctx, off, {0}, {1}, {kInt64Max}), total}, {Attr::i("axis", 0)});
  }
  Value p = unsqueeze(ctx, pos, {0});  // (1, n)
  Value member = ctx.op("And", {ctx.op("Not", {ctx.op("Less", {p, unsqueeze(ctx, starts, {1})})}),
                                ctx.op("Less", {p, unsqueeze(ctx, ends, {1})})});  // (B, n)
  if (pad.valid()) {
    int64_t pad_idx = pad.to_int();
    if (pad_idx < 0 && weight.dim(0) >= 0) pad_idx += weight.dim(0);
    member = ctx.op("And", {member, unsqueeze(ctx, ctx.op("Not", {ctx.op("Equal", {idx, ctx.scalar_i64(pad_idx)})}), {0})});
  }
  Value member3 = unsqueeze(ctx, member, {2});  // (B, n, 1)
  Value rows3 = unsqueeze(ctx, rows, {0});      // (1, n, D)
  Value zero = ctx.scalar(dt, 0.0);
  Value count = reduce(ctx, "ReduceSum", ctx.op("Cast", {member3}, {Attr::i("to", dt)}), {1}, false);  // (B, 1)
  Value y;
  if (mode == kMax) {
    Value m = reduce(ctx, "ReduceMax", ctx.op("Where", {member3, rows3, ctx.scalar(dt, -INFINITY)}), {1}, false);
    y = ctx.op("Where", {ctx.op("Greater", {count, zero}), m, zero});
  } else {
    y = reduce(ctx, "ReduceSum", ctx.op("Where", {member3, rows3, zero}), {1}, false);
    if (mode == kMean) y = ctx.op("Div", {y, ctx.op("Max", {count, ctx.scalar(dt, 1.0)})});
  }
  ctx.set_output(0, y);
}

}  // namespace

T2O_SYMBOLIC("aten::embedding_bag", 9) { embedding_bag(ctx); }
