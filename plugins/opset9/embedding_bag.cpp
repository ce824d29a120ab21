// aten::embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq,
//     int mode, bool sparse, Tensor? per_sample_weights, bool include_last_offset, int? padding_idx)
//     -> (Tensor, Tensor, Tensor, Tensor)
// aten::embedding_bag(... the same without padding_idx)
// Only the first output (the bags) is converted; the auxiliary outputs (offset2bag, bag_size,
// max_indices, used by autograd) are left unbound: a model that reads them fails with a message.
// Rows = Gather(weight, indices) (n, D), scaled by per_sample_weights (mode sum only), then the bag
// reduction of common/embedding_bag.hpp (sum / mean / max over offsets, padding_idx entries dropped,
// empty bags 0). Offsets may be computed at run time; F.embedding_bag's 2-D input reaches TorchScript
// as 1-D indices with arange offsets.
#include <torch2onnx/plugin.hpp>

#include "common/embedding_bag.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

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
  if (psw.valid() && mode != int64_t(BagMode::kSum)) fail("aten::embedding_bag: per_sample_weights need mode='sum'");
  if (weight.rank() != 2) fail("aten::embedding_bag: weight must be 2-D");
  t2o_dtype dt = weight.dtype();
  Value idx = as_i64(ctx, indices);
  Value rows = ctx.op("Gather", {ctx.as_onnx(weight), nonneg_index(ctx, indices, weight, 0)}, {Attr::i("axis", 0)});
  if (psw.valid()) rows = ctx.op("Mul", {rows, unsqueeze(ctx, to_dtype(ctx, psw, dt), {1})});
  Value keep;  // entries equal to padding_idx do not count
  if (pad.valid()) {
    int64_t pad_idx = pad.to_int();
    if (pad_idx < 0 && weight.dim(0) >= 0) pad_idx += weight.dim(0);
    keep = ctx.op("Not", {ctx.op("Equal", {idx, ctx.scalar_i64(pad_idx)})});
  }
  Value y = reduce_bags(ctx, rows, dt, indices, offsets, include_last, BagMode(mode), keep);
  ctx.set_output(0, y);
}

}  // namespace

T2O_SYMBOLIC("aten::embedding_bag", 9) { embedding_bag(ctx); }
