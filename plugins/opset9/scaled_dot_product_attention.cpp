// aten::scaled_dot_product_attention (PyTorch 2.x; F.scaled_dot_product_attention, nn.MultiheadAttention
// and nn.TransformerEncoderLayer traced with grad enabled or scripted) -> its exact decomposition:
// MatMul, scale, the causal / boolean / float mask, Softmax with PyTorch's zero for fully masked rows,
// MatMul (common/sdpa.hpp). ONNX Attention replaces it at opset 23 (opset23/scaled_dot_product_attention.cpp).
#include <torch2onnx/plugin.hpp>

#include "common/sdpa.hpp"

using namespace t2o;
using namespace t2o::pack;

// Registered for optionals: attn_mask may be None on some run-time path (common/sdpa.hpp).
T2O_OPTIONALS_SYMBOLIC("aten::scaled_dot_product_attention", 9) { ctx.set_output(0, sdpa_decomposed(ctx, sdpa_args(ctx))); }
