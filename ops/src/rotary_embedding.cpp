// onnx::RotaryEmbedding.opset23: rotary position embeddings as ONNX RotaryEmbedding-23 defines them and
// as ONNX Runtime 1.30's CPU kernel computes them (including its input checks: a 4-D input's num_heads
// is its dim 1, whatever the attribute says; rotary_embedding_dim > 0 with a 3-D input needs num_heads;
// a sequence longer than the cache is an error rather than a cache update).
//
// onnx::RotaryEmbedding.opset23(Tensor x, Tensor cos_cache, Tensor sin_cache, Tensor? position_ids=None, *,
//     bool interleaved=False, SymInt num_heads=0, SymInt rotary_embedding_dim=0) -> Tensor
#include "ops_common.hpp"

namespace t2o_ops {

namespace {
#define T2O_ROPE_CHECK(cond, ...) TORCH_CHECK(cond, "RotaryEmbedding: ", __VA_ARGS__)
}

at::Tensor rotary_embedding_23(const at::Tensor& x, const at::Tensor& cos_cache, const at::Tensor& sin_cache,
                               const std::optional<at::Tensor>& position_ids, bool interleaved, int64_t num_heads,
                               int64_t rotary_embedding_dim) {
  const int64_t rank = x.dim();
  T2O_ROPE_CHECK(rank == 3 || rank == 4, "input 'X' must have 3 or 4 dimensions, got ", rank);
  T2O_ROPE_CHECK(cos_cache.scalar_type() == x.scalar_type() && sin_cache.scalar_type() == x.scalar_type(),
                 "cos_cache and sin_cache must have X's dtype (", x.scalar_type(), "), got ", cos_cache.scalar_type(),
                 " and ", sin_cache.scalar_type());
  T2O_ROPE_CHECK(at::isFloatingType(x.scalar_type()), "X must be a floating-point tensor, got ", x.scalar_type());
  T2O_ROPE_CHECK(rotary_embedding_dim >= 0, "rotary_embedding_dim must be >= 0, got ", rotary_embedding_dim);
  if (rotary_embedding_dim > 0 && num_heads <= 0)
    T2O_ROPE_CHECK(rank == 4, "num_heads must be given when rotary_embedding_dim is and X is not 4-D");

  const int64_t batch = x.size(0);
  int64_t seq, heads, head_size;
  at::Tensor x4;  // [batch, seq, heads, head_size]
  if (rank == 4) {
    heads = x.size(1);
    seq = x.size(2);
    head_size = x.size(3);
    x4 = x.permute({0, 2, 1, 3});
  } else {
    seq = x.size(1);
    const int64_t hidden = x.size(2);
    T2O_ROPE_CHECK(num_heads > 0, "num_heads must be > 0 for a 3-D X");
    T2O_ROPE_CHECK(hidden % num_heads == 0, "hidden size ", hidden, " must be divisible by num_heads ", num_heads);
    heads = num_heads;
    head_size = hidden / num_heads;
    x4 = x.reshape({batch, seq, heads, head_size});
  }
  const int64_t rot = rotary_embedding_dim > 0 ? rotary_embedding_dim : head_size;
  T2O_ROPE_CHECK(rot <= head_size, "rotary_embedding_dim ", rot, " must be <= head_size ", head_size);
  T2O_ROPE_CHECK(rot % 2 == 0, "the rotated dimension ", rot, " must be even");
  const int64_t half = rot / 2;
  T2O_ROPE_CHECK(cos_cache.sizes() == sin_cache.sizes(), "cos_cache ", cos_cache.sizes(), " and sin_cache ",
                 sin_cache.sizes(), " must have the same shape");

  at::Tensor cos, sin;  // [batch, seq, half]
  if (position_ids) {
    const at::Tensor& pos = *position_ids;
    T2O_ROPE_CHECK(cos_cache.dim() == 2, "cos_cache must be 2-D when position_ids is given, got ", cos_cache.sizes());
    T2O_ROPE_CHECK(pos.dim() == 2 && pos.size(0) == batch && pos.size(1) == seq, "position_ids must be (batch ",
                   batch, ", sequence ", seq, "), got ", pos.sizes());
    T2O_ROPE_CHECK(pos.scalar_type() == at::kLong, "position_ids must be int64, got ", pos.scalar_type());
    T2O_ROPE_CHECK(cos_cache.size(1) == half, "cos_cache dim 1 must be ", half, " (rotated dimension / 2), got ",
                   cos_cache.size(1));
    // ONNX Runtime does not grow the cache: a sequence longer than it is an error there.
    T2O_ROPE_CHECK(seq <= cos_cache.size(0), "sequence length ", seq, " exceeds the cache's ", cos_cache.size(0),
                   " positions");
    if (pos.numel() > 0) {
      const int64_t lo = pos.min().item<int64_t>(), hi = pos.max().item<int64_t>();
      T2O_ROPE_CHECK(lo >= 0 && hi < cos_cache.size(0), "position_ids must lie in [0, ", cos_cache.size(0),
                     "), got values in [", lo, ", ", hi, "]");
    }
    cos = cos_cache.index_select(0, pos.reshape({-1})).reshape({batch, seq, half});
    sin = sin_cache.index_select(0, pos.reshape({-1})).reshape({batch, seq, half});
  } else {
    T2O_ROPE_CHECK(cos_cache.dim() == 3, "cos_cache must be 3-D when position_ids is not given, got ",
                   cos_cache.sizes());
    T2O_ROPE_CHECK(cos_cache.size(0) == batch && cos_cache.size(1) == seq, "cos_cache must be (batch ", batch,
                   ", sequence ", seq, ", ", half, "), got ", cos_cache.sizes());
    T2O_ROPE_CHECK(cos_cache.size(2) == half, "cos_cache dim 2 must be ", half, " (rotated dimension / 2), got ",
                   cos_cache.size(2));
    cos = cos_cache;
    sin = sin_cache;
  }

  // Half types are rotated in float, as ONNX Runtime does, then rounded once.
  const at::ScalarType compute =
      (x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16) ? at::kFloat : x.scalar_type();
  at::Tensor xr = x4.narrow(3, 0, rot).to(compute);
  cos = cos.to(compute).unsqueeze(2);
  sin = sin.to(compute).unsqueeze(2);
  at::Tensor x1, x2;
  if (interleaved) {
    x1 = xr.slice(3, 0, rot, 2);
    x2 = xr.slice(3, 1, rot, 2);
  } else {
    x1 = xr.narrow(3, 0, half);
    x2 = xr.narrow(3, half, half);
  }
  at::Tensor real = x1 * cos - x2 * sin;
  at::Tensor imag = x1 * sin + x2 * cos;
  at::Tensor rotated = interleaved ? at::stack({real, imag}, -1).reshape({batch, seq, heads, rot})
                                   : at::cat({real, imag}, -1);
  at::Tensor out4 = at::cat({rotated.to(x.scalar_type()), x4.narrow(3, rot, head_size - rot)}, -1);
  if (rank == 4) return out4.permute({0, 2, 1, 3}).contiguous();
  return out4.reshape(x.sizes()).contiguous();
}

void rotary_embedding_kernel(const c10::OperatorHandle&, torch::jit::Stack* stack) {
  auto args = torch::jit::last(*stack, 7);
  at::Tensor out = rotary_embedding_23(args[0].toTensor(), args[1].toTensor(), args[2].toTensor(),
                                       arg_opt_tensor(args[3]), args[4].toBool(), arg_int(args[5]), arg_int(args[6]));
  torch::jit::drop(*stack, 7);
  stack->emplace_back(std::move(out));
}

}  // namespace t2o_ops
