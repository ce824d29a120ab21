// aten::_native_multi_head_attention: the fused self-attention nn.MultiheadAttention takes in eval
// under no_grad with batch_first=True (what torch.jit.trace records then). Decomposed into
// MatMul / Softmax / Transpose (common/attention.hpp); the in-projection is split and transposed
// at export time.
#include <torch2onnx/plugin.hpp>

#include "common/attention.hpp"

using namespace t2o;
using namespace t2o::pack;

// (query, key, value, int embed_dim, int num_head, qkv_weight, qkv_bias, proj_weight, proj_bias,
//  Tensor? mask=None, bool need_weights=True, bool average_attn_weights=True, int? mask_type=None)
//  -> (Tensor, Tensor)
T2O_SYMBOLIC("aten::_native_multi_head_attention", 9) {
  Value q = ctx.input(0), k = ctx.input(1), v = ctx.input(2);
  if (q.rank() != 3) unsupported(ctx.kind() + ": query of rank " + std::to_string(q.rank()) + " (expected 3)");
  int64_t embed = ctx.input(3).to_int(), heads = ctx.input(4).to_int();
  Value mask = opt_input(ctx, 9);
  bool need_weights = ctx.num_inputs() > 10 ? ctx.input(10).to_bool() : true;
  bool average = ctx.num_inputs() > 11 ? ctx.input(11).to_bool() : true;
  Value mt = opt_input(ctx, 12);
  int64_t mask_type = mt.valid() ? mt.to_int() : (mask.valid() && mask.rank() == 2 ? 1 : 0);
  AttentionResult r = multi_head_attention(ctx, ctx.as_onnx(q), ctx.as_onnx(k), ctx.as_onnx(v), q.dtype(), embed,
                                           heads, ctx.input(5), opt_input(ctx, 6), ctx.input(7), opt_input(ctx, 8),
                                           mask, mask_type, need_weights, average);
  ctx.set_output(0, r.out);
  // Without need_weights PyTorch returns an undefined tensor: left unbound (an error if used).
  if (r.weights.valid()) ctx.set_output(1, r.weights);
}
