// ONNX opset 23 schemas: RMSNormalization, and Attention and RotaryEmbedding (emitted by the
// torch.onnx.ops symbolics, issue 15). Attention-24 (opset24.cpp) adds the nonpad_kv_seqlen input.
#include "infer.hpp"
#include "schemas.hpp"

namespace t2o::core::onnx_schemas {

namespace {

using onnx::getAttribute;

// Shapes of Attention's outputs (Y, present_key, present_value, qk_matmul_output) from Q, K, V and
// the past caches, for 4-D (batch, heads, seq, head_size) and 3-D (batch, seq, heads * head_size) inputs.
void attention_inference(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (ctx.getNumOutputs() > 1) onnx::propagateElemTypeFromInputToOutput(ctx, 1, 1);
  if (ctx.getNumOutputs() > 2) onnx::propagateElemTypeFromInputToOutput(ctx, 2, 2);
  if (ctx.getNumOutputs() > 3) onnx::propagateElemTypeFromInputToOutput(ctx, 0, 3);
  const int q_rank = rank_of(ctx, 0), k_rank = rank_of(ctx, 1), v_rank = rank_of(ctx, 2);
  for (int r : {q_rank, k_rank, v_rank})
    if (r >= 0 && r != 3 && r != 4) fail_shape_inference("Attention: Q, K and V must be 3-D or 4-D, got rank ", r);
  if (q_rank < 0 || k_rank < 0 || v_rank < 0) return;
  if (q_rank != k_rank || q_rank != v_rank) fail_shape_inference("Attention: Q, K and V differ in rank");
  const int64_t q_heads_attr = getAttribute(ctx, "q_num_heads", 0), kv_heads_attr = getAttribute(ctx, "kv_num_heads", 0);
  int64_t batch = dim_value(ctx, 0, 0), q_heads, q_seq, kv_heads, kv_seq, head_size, v_head_size;
  if (q_rank == 4) {
    q_heads = dim_value(ctx, 0, 1), q_seq = dim_value(ctx, 0, 2);
    kv_heads = dim_value(ctx, 1, 1), kv_seq = dim_value(ctx, 1, 2);
    head_size = dim_value(ctx, 1, 3), v_head_size = dim_value(ctx, 2, 3);
  } else {
    if (q_heads_attr <= 0 || kv_heads_attr <= 0)
      fail_shape_inference("Attention: 3-D inputs need the q_num_heads and kv_num_heads attributes");
    q_heads = q_heads_attr, kv_heads = kv_heads_attr;
    q_seq = dim_value(ctx, 0, 1), kv_seq = dim_value(ctx, 1, 1);
    const int64_t k_hidden = dim_value(ctx, 1, 2), v_hidden = dim_value(ctx, 2, 2);
    head_size = k_hidden < 0 ? -1 : k_hidden / kv_heads;
    v_head_size = v_hidden < 0 ? -1 : v_hidden / kv_heads;
  }
  if (q_heads > 0 && kv_heads > 0 && q_heads % kv_heads != 0)
    fail_shape_inference("Attention: q_num_heads ", q_heads, " is not a multiple of kv_num_heads ", kv_heads);
  auto* y = onnx::getOutputShape(ctx, 0);
  set_dim(y, batch);
  if (q_rank == 4) {
    set_dim(y, q_heads);
    set_dim(y, q_seq);
    set_dim(y, v_head_size);
  } else {
    set_dim(y, q_seq);
    set_dim(y, v_head_size < 0 ? -1 : q_heads * v_head_size);
  }
  int64_t total = kv_seq;
  if (has_input(ctx, 4)) {
    const int64_t past = dim_value(ctx, 4, 2);
    total = past < 0 || kv_seq < 0 ? -1 : past + kv_seq;
  }
  auto cache_shape = [&](size_t output, int64_t size) {
    if (ctx.getNumOutputs() <= output || !ctx.getOutputType(output)) return;
    auto* s = onnx::getOutputShape(ctx, output);
    for (int64_t d : {batch, kv_heads, total, size}) set_dim(s, d);
  };
  cache_shape(1, head_size);
  cache_shape(2, v_head_size);
  if (ctx.getNumOutputs() > 3 && ctx.getOutputType(3)) {
    auto* s = onnx::getOutputShape(ctx, 3);
    for (int64_t d : {batch, q_heads, q_seq, total}) set_dim(s, d);
  }
}

}  // namespace

// Attention at 23 (Q, K, V, attn_mask, past_key, past_value) and 24 (+ nonpad_kv_seqlen).
OpSchema attention_schema(int since, const char* file, int line) {
  OpSchema s = onnx_schema("Attention", since, file, line);
  s.Attr("is_causal", "mask out scores above the diagonal", AttributeProto::INT, static_cast<int64_t>(0))
      .Attr("kv_num_heads", "heads of K and V (3-D inputs)", AttributeProto::INT, false)
      .Attr("q_num_heads", "heads of Q (3-D inputs)", AttributeProto::INT, false)
      .Attr("qk_matmul_output_mode", "which stage qk_matmul_output shows (0-3)", AttributeProto::INT,
            static_cast<int64_t>(0))
      .Attr("scale", "scale of Q*K^T (default 1/sqrt(head_size))", AttributeProto::FLOAT, false)
      .Attr("softcap", "softcap of the scores (0: none)", AttributeProto::FLOAT, 0.0f)
      .Attr("softmax_precision", "precision of the softmax", AttributeProto::INT, false)
      .Input(0, "Q", "query", "T1")
      .Input(1, "K", "key", "T1")
      .Input(2, "V", "value", "T2")
      .Input(3, "attn_mask", "bool (True: attend) or additive mask", "U", kOptional)
      .Input(4, "past_key", "key cache", "T1", kOptional)
      .Input(5, "past_value", "value cache", "T2", kOptional);
  if (since >= 24) s.Input(6, "nonpad_kv_seqlen", "valid tokens per batch entry", "tensor(int64)", kOptional);
  s.Output(0, "Y", "attention output", "T1")
      .Output(1, "present_key", "updated key cache", "T1", kOptional)
      .Output(2, "present_value", "updated value cache", "T2", kOptional)
      .Output(3, "qk_matmul_output", "scores (see qk_matmul_output_mode)", "T1", kOptional)
      .TypeConstraint("T1", float_types(), "Q and K")
      .TypeConstraint("T2", float_types(), "V")
      .TypeConstraint("U", concat(onnx_compat::all_numeric_types_with_bfloat(), {"tensor(bool)"}), "the mask")
      .TypeAndShapeInferenceFunction(attention_inference);
  return s;
}

void opset23_schemas(std::vector<OpSchema>& out) {
  {
    OpSchema s = T2O_SCHEMA("RMSNormalization", 23);
    s.Attr("axis", "first normalized axis", AttributeProto::INT, static_cast<int64_t>(-1))
        .Attr("epsilon", "added to the mean square", AttributeProto::FLOAT, 1e-5f)
        .Attr("stash_type", "precision of the first stage", AttributeProto::INT, static_cast<int64_t>(1))
        .Input(0, "X", "input", "T")
        .Input(1, "scale", "scale, broadcastable to the normalized shape", "V")
        .Output(0, "Y", "X's shape", "V")
        .TypeConstraint("T", float_types(), "X")
        .TypeConstraint("V", float_types(), "scale and Y")
        .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
          onnx::propagateElemTypeFromInputToOutput(ctx, 1, 0);
          const int rank = rank_of(ctx, 0);
          if (rank < 0) return;
          normalize_axis(getAttribute(ctx, "axis", -1), rank, "axis");
          onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
        });
    out.push_back(std::move(s));
  }

  out.push_back(attention_schema(23, __FILE__, __LINE__));

  {
    OpSchema s = T2O_SCHEMA("RotaryEmbedding", 23);
    s.Attr("interleaved", "rotate interleaved pairs instead of halves", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("num_heads", "heads (3-D input)", AttributeProto::INT, false)
        .Attr("rotary_embedding_dim", "rotated part of each head (0: all)", AttributeProto::INT,
              static_cast<int64_t>(0))
        .Input(0, "X", "(batch, heads, seq, head_size) or (batch, seq, hidden)", "T")
        .Input(1, "cos_cache", "cosines", "T")
        .Input(2, "sin_cache", "sines", "T")
        .Input(3, "position_ids", "(batch, seq) positions", "M", kOptional)
        .Output(0, "Y", "X's shape", "T")
        .TypeConstraint("T", {"tensor(float)", "tensor(float16)", "tensor(bfloat16)"}, "float tensors")
        .TypeConstraint("M", {"tensor(int64)"}, "positions")
        .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
          const int rank = rank_of(ctx, 0);
          if (rank >= 0 && rank != 3 && rank != 4) fail_shape_inference("RotaryEmbedding: X must be 3-D or 4-D");
          if (rank == 3 && getAttribute(ctx, "num_heads", 0) <= 0)
            fail_shape_inference("RotaryEmbedding: a 3-D X needs the num_heads attribute");
          same_as_input0(ctx);
        });
    out.push_back(std::move(s));
  }
}

}  // namespace t2o::core::onnx_schemas
