// aten::_transformer_encoder_layer_fwd: the fused nn.TransformerEncoderLayer PyTorch runs in eval
// under no_grad with batch_first=True (recorded by torch.jit.trace). Decomposed into attention
// (common/attention.hpp), residual adds, layer norms (LayerNormalization from 17) and the
// ReLU/GELU feed-forward block.
#include <torch2onnx/plugin.hpp>

#include "common/attention.hpp"

using namespace t2o;
using namespace t2o::pack;

// (src, int embed_dim, int num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias, bool use_gelu,
//  bool norm_first, float eps, norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2,
//  ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, Tensor? mask=None, int? mask_type=None)
T2O_SYMBOLIC("aten::_transformer_encoder_layer_fwd", 9) {
  Value src = ctx.input(0);
  if (src.rank() != 3) unsupported(ctx.kind() + ": src of rank " + std::to_string(src.rank()) + " (expected 3)");
  t2o_dtype dt = src.dtype();
  int64_t embed = ctx.input(1).to_int(), heads = ctx.input(2).to_int();
  bool use_gelu = ctx.input(7).to_bool(), norm_first = ctx.input(8).to_bool();
  double eps = ctx.input(9).to_float();
  Value mask = opt_input(ctx, 18);
  Value mt = opt_input(ctx, 19);
  int64_t mask_type = mt.valid() ? mt.to_int() : (mask.valid() && mask.rank() == 2 ? 1 : 0);

  auto self_attention = [&](const Value& x) {
    return multi_head_attention(ctx, x, x, x, dt, embed, heads, ctx.input(3), opt_input(ctx, 4), ctx.input(5),
                                opt_input(ctx, 6), mask, mask_type, false, false)
        .out;
  };
  auto norm = [&](const Value& x, int i) {
    return layer_norm_last(ctx, x, 3, dt, eps, opt_input(ctx, 10 + 2 * i), opt_input(ctx, 11 + 2 * i));
  };
  auto feed_forward = [&](const Value& x) {
    Value h = linear_rows(ctx, x, ctx.input(14), opt_input(ctx, 15));
    h = use_gelu ? gelu_erf(ctx, h, dt) : ctx.op("Relu", {h});
    return linear_rows(ctx, h, ctx.input(16), opt_input(ctx, 17));
  };

  Value x = ctx.as_onnx(src);
  if (norm_first) {
    x = ctx.op("Add", {x, self_attention(norm(x, 0))});
    x = ctx.op("Add", {x, feed_forward(norm(x, 1))});
  } else {
    x = norm(ctx.op("Add", {x, self_attention(x)}), 0);
    x = norm(ctx.op("Add", {x, feed_forward(x)}), 1);
  }
  ctx.set_output(0, x);
}
