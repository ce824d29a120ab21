// onnx::Attention.opset23: scaled dot-product attention as ONNX Attention-23 defines it and as ONNX
// Runtime 1.30's CPU kernel computes it. Where PyTorch's reference (torch/onnx/ops/_impl.py) differs,
// this follows ONNX Runtime (README, "torch.onnx.ops"):
//  - softcap is applied to the scaled Q·Kᵀ before the mask/bias is added (ONNX's corrected order), so a
//    masked score stays masked; qk_matmul_output_mode 1 is the scores after softcap, 2 after the mask;
//  - is_causal with a past: query i sees keys up to past_length + i (bottom-right alignment); a single
//    query after a non-empty past sees every key; is_causal may be combined with attn_mask;
//  - masked scores hold the lowest finite float, not -inf (a fully masked row is uniform, not NaN).
//
// onnx::Attention.opset23(Tensor Q, Tensor K, Tensor V, Tensor? attn_mask=None, Tensor? past_key=None,
//     Tensor? past_value=None, *, bool is_causal=False, SymInt kv_num_heads=0, SymInt q_num_heads=0,
//     SymInt qk_matmul_output_mode=0, float? scale=None, float softcap=0.0, SymInt? softmax_precision=None)
//     -> (Tensor, Tensor, Tensor, Tensor)
#include "ops_common.hpp"

#include <cmath>
#include <limits>

namespace t2o_ops {

namespace {
#define T2O_ATTN_CHECK(cond, ...) TORCH_CHECK(cond, "Attention: ", __VA_ARGS__)

// (batch, seq, heads*size) -> (batch, heads, seq, size)
at::Tensor to_heads(const at::Tensor& t, int64_t heads) {
  return t.reshape({t.size(0), t.size(1), heads, t.size(2) / heads}).transpose(1, 2);
}
}  // namespace

AttentionOutputs attention_23(const at::Tensor& Q_in, const at::Tensor& K_in, const at::Tensor& V_in,
                              const std::optional<at::Tensor>& attn_mask, const std::optional<at::Tensor>& past_key,
                              const std::optional<at::Tensor>& past_value, bool is_causal, int64_t kv_num_heads,
                              int64_t q_num_heads, int64_t qk_matmul_output_mode, std::optional<double> scale,
                              double softcap, std::optional<int64_t> softmax_precision) {
  const int64_t rank = Q_in.dim();
  T2O_ATTN_CHECK(rank == 3 || rank == 4, "Q must be 3-D or 4-D, got ", rank, "-D");
  T2O_ATTN_CHECK(K_in.dim() == rank && V_in.dim() == rank, "Q, K and V must have the same rank, got ", rank, ", ",
                 K_in.dim(), ", ", V_in.dim());
  T2O_ATTN_CHECK(at::isFloatingType(Q_in.scalar_type()), "Q must be floating point, got ", Q_in.scalar_type());
  T2O_ATTN_CHECK(K_in.scalar_type() == Q_in.scalar_type() && V_in.scalar_type() == Q_in.scalar_type(),
                 "Q, K and V must have the same dtype");
  T2O_ATTN_CHECK(past_key.has_value() == past_value.has_value(), "past_key and past_value must be given together");
  T2O_ATTN_CHECK(qk_matmul_output_mode >= 0 && qk_matmul_output_mode <= 3,
                 "qk_matmul_output_mode must be 0, 1, 2 or 3, got ", qk_matmul_output_mode);
  T2O_ATTN_CHECK(!scale || *scale > 0, "scale must be > 0 when given, got ", scale ? *scale : 0.0);
  T2O_ATTN_CHECK(softcap >= 0, "softcap must be >= 0, got ", softcap);
  if (softmax_precision)
    T2O_ATTN_CHECK(*softmax_precision == 1 || *softmax_precision == 10 || *softmax_precision == 11 ||
                       *softmax_precision == 16,
                   "softmax_precision must be an ONNX float type (1, 10, 11 or 16), got ", *softmax_precision);
  const int64_t batch = Q_in.size(0);
  T2O_ATTN_CHECK(K_in.size(0) == batch && V_in.size(0) == batch, "Q, K and V must have the same batch size");

  at::Tensor Q, K, V;  // (batch, heads, seq, size)
  if (rank == 4) {
    const int64_t qh = q_num_heads > 0 ? q_num_heads : Q_in.size(1);
    const int64_t kvh = kv_num_heads > 0 ? kv_num_heads : K_in.size(1);
    T2O_ATTN_CHECK(qh == Q_in.size(1), "q_num_heads ", qh, " differs from Q.shape[1] ", Q_in.size(1));
    T2O_ATTN_CHECK(kvh == K_in.size(1) && kvh == V_in.size(1), "kv_num_heads ", kvh, " differs from K.shape[1] ",
                   K_in.size(1), " or V.shape[1] ", V_in.size(1));
    T2O_ATTN_CHECK(Q_in.size(3) == K_in.size(3), "Q and K head sizes differ: ", Q_in.size(3), " and ", K_in.size(3));
    T2O_ATTN_CHECK(K_in.size(2) == V_in.size(2), "K and V sequence lengths differ");
    Q = Q_in;
    K = K_in;
    V = V_in;
  } else {
    T2O_ATTN_CHECK(q_num_heads > 0 && kv_num_heads > 0, "q_num_heads and kv_num_heads must be given for 3-D inputs");
    T2O_ATTN_CHECK(Q_in.size(2) % q_num_heads == 0, "Q hidden size ", Q_in.size(2), " is not a multiple of q_num_heads ",
                   q_num_heads);
    T2O_ATTN_CHECK(V_in.size(2) % kv_num_heads == 0, "V hidden size ", V_in.size(2),
                   " is not a multiple of kv_num_heads ", kv_num_heads);
    const int64_t head_size = Q_in.size(2) / q_num_heads;
    T2O_ATTN_CHECK(K_in.size(2) == kv_num_heads * head_size, "K hidden size ", K_in.size(2), " must be kv_num_heads * ",
                   head_size);
    T2O_ATTN_CHECK(K_in.size(1) == V_in.size(1), "K and V sequence lengths differ");
    Q = to_heads(Q_in, q_num_heads);
    K = to_heads(K_in, kv_num_heads);
    V = to_heads(V_in, kv_num_heads);
  }
  const int64_t qh = Q.size(1), kvh = K.size(1), q_seq = Q.size(2), head_size = Q.size(3);
  T2O_ATTN_CHECK(qh % kvh == 0, "q_num_heads ", qh, " must be a multiple of kv_num_heads ", kvh);
  T2O_ATTN_CHECK(batch > 0 && q_seq > 0 && K.size(2) > 0 && head_size > 0 && V.size(3) > 0,
                 "batch, sequence lengths and head sizes must be > 0");

  int64_t past = 0;
  if (past_key) {
    const at::Tensor &pk = *past_key, &pv = *past_value;
    T2O_ATTN_CHECK(pk.dim() == 4 && pv.dim() == 4, "past_key and past_value must be 4-D");
    T2O_ATTN_CHECK(pk.size(0) == batch && pk.size(1) == kvh && pk.size(3) == head_size, "past_key must be (", batch,
                   ", ", kvh, ", past, ", head_size, "), got ", pk.sizes());
    T2O_ATTN_CHECK(pv.size(0) == batch && pv.size(1) == kvh && pv.size(2) == pk.size(2) && pv.size(3) == V.size(3),
                   "past_value must be (", batch, ", ", kvh, ", ", pk.size(2), ", ", V.size(3), "), got ", pv.sizes());
    T2O_ATTN_CHECK(pk.scalar_type() == K.scalar_type() && pv.scalar_type() == V.scalar_type(),
                   "past_key/past_value must have K's/V's dtype");
    past = pk.size(2);
  }
  at::Tensor present_key = past_key ? at::cat({*past_key, K}, 2) : K.contiguous();
  at::Tensor present_value = past_value ? at::cat({*past_value, V}, 2) : V.contiguous();
  const int64_t total = present_key.size(2);

  // The additive bias: the mask (booleans become 0 / lowest), then causal positions overwritten.
  const at::ScalarType dt = Q.scalar_type();
  const at::ScalarType compute = (dt == at::kHalf || dt == at::kBFloat16) ? at::kFloat : dt;
  const double lowest = dt == at::kDouble ? std::numeric_limits<double>::lowest()
                        : dt == at::kHalf ? -65504.0
                        : dt == at::kBFloat16 ? -3.3895313892515355e38
                                              : (double)std::numeric_limits<float>::lowest();
  std::optional<at::Tensor> bias;
  if (attn_mask) {
    const at::Tensor& m = *attn_mask;
    T2O_ATTN_CHECK(m.dim() >= 2 && m.dim() <= 4, "attn_mask must be 2-D, 3-D or 4-D, got ", m.dim(), "-D");
    T2O_ATTN_CHECK(m.scalar_type() == at::kBool || m.scalar_type() == dt, "attn_mask must be bool or Q's dtype (", dt,
                   "), got ", m.scalar_type());
    T2O_ATTN_CHECK(m.size(-1) == total, "attn_mask's last dim ", m.size(-1), " must be the total sequence length ",
                   total);
    T2O_ATTN_CHECK(m.size(-2) == q_seq, "attn_mask's dim -2 ", m.size(-2), " must be Q's sequence length ", q_seq);
    if (m.dim() >= 3)
      T2O_ATTN_CHECK(m.size(-3) == 1 || m.size(-3) == qh, "attn_mask's heads dim ", m.size(-3), " must be 1 or ", qh);
    if (m.dim() == 4)
      T2O_ATTN_CHECK(m.size(0) == 1 || m.size(0) == batch, "attn_mask's batch dim ", m.size(0), " must be 1 or ",
                     batch);
    bias = m.scalar_type() == at::kBool
               ? at::where(m, at::zeros({}, at::TensorOptions().dtype(compute)),
                           at::full({}, lowest, at::TensorOptions().dtype(compute)))
               : m.to(compute);
  }
  // A single query after a non-empty past sees every key (ONNX Runtime's decode shortcut).
  if (is_causal && !(q_seq == 1 && past > 0)) {
    at::Tensor rows = at::arange(q_seq, at::kLong).unsqueeze(1);
    at::Tensor cols = at::arange(total, at::kLong).unsqueeze(0);
    at::Tensor hidden = cols > rows + past;  // (q_seq, total)
    at::Tensor base = bias ? *bias : at::zeros({q_seq, total}, at::TensorOptions().dtype(compute));
    bias = at::where(hidden, at::full({}, lowest, at::TensorOptions().dtype(compute)), base);
  }

  // Grouped-query heads: query head h reads kv head h / (qh / kvh).
  at::Tensor keys = present_key, values = present_value;
  if (qh != kvh) {
    keys = keys.repeat_interleave(qh / kvh, 1);
    values = values.repeat_interleave(qh / kvh, 1);
  }
  const double scale_value = scale ? *scale : (double)(float)(1.0 / std::sqrt((double)head_size));
  at::Tensor scores = at::matmul(Q.to(compute), keys.to(compute).transpose(-2, -1)) * scale_value;
  at::Tensor qk_out;
  if (qk_matmul_output_mode == 0) qk_out = scores;
  if (softcap > 0) scores = at::tanh(scores / softcap) * softcap;
  if (qk_matmul_output_mode == 1) qk_out = scores;
  if (bias) scores = scores + *bias;
  if (qk_matmul_output_mode == 2) qk_out = scores;
  at::Tensor probs;
  if (softmax_precision && *softmax_precision == 11)
    probs = at::softmax(scores.to(at::kDouble), -1).to(compute);
  else
    probs = at::softmax(scores, -1);
  if (qk_matmul_output_mode == 3) qk_out = probs;
  at::Tensor out = at::matmul(probs, values.to(compute)).to(dt);
  if (rank == 3) out = out.transpose(1, 2).reshape({batch, q_seq, qh * V.size(3)});
  return {out.contiguous(), present_key, present_value, qk_out.to(dt).contiguous()};
}

void attention_kernel(const c10::OperatorHandle&, torch::jit::Stack* stack) {
  auto a = torch::jit::last(*stack, 13);
  AttentionOutputs r = attention_23(a[0].toTensor(), a[1].toTensor(), a[2].toTensor(), arg_opt_tensor(a[3]),
                                    arg_opt_tensor(a[4]), arg_opt_tensor(a[5]), a[6].toBool(), arg_int(a[7]),
                                    arg_int(a[8]), arg_int(a[9]), arg_opt_float(a[10]), a[11].toDouble(),
                                    arg_opt_int(a[12]));
  torch::jit::drop(*stack, 13);
  stack->emplace_back(std::move(r.output));
  stack->emplace_back(std::move(r.present_key));
  stack->emplace_back(std::move(r.present_value));
  stack->emplace_back(std::move(r.qk_output));
}

}  // namespace t2o_ops
