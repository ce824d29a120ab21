// Building blocks for PyTorch's fused transformer ops (aten::_native_multi_head_attention,
// aten::_transformer_encoder_layer_fwd) decomposed into standard ONNX ops: linear layers with
// weights transposed/split at export time, multi-head scaled dot-product attention with a
// key-padding or attention mask, layer norm (LayerNormalization from opset 17), exact GELU.
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_ATTENTION_HPP
#define TORCH2ONNX_PACK_COMMON_ATTENTION_HPP

#include <torch2onnx/plugin.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "forms.hpp"
#include "host_tensor.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

// x @ w[row0:row1]^T + b[row0:row1] for a PyTorch Linear weight w [out, in] (row1 < 0: all rows).
// Constant weights are sliced and transposed at export time; run-time ones in the graph.
inline Value linear_rows(Ctx& ctx, const Value& x, const Value& w, const Value& b, int64_t row0 = 0,
                         int64_t row1 = -1) {
  if (w.rank() != 2) fail(ctx.kind() + ": expected a 2-D weight");
  int64_t out = w.dim(0);
  if (row1 < 0) row1 = out;
  Value wt;
  if (w.is_const()) {
    HostTensor t = read_const(ctx, w, "weight");
    if (row0 != 0 || row1 != out) t = rows(t, row0, row1);
    wt = make_const(ctx, transpose2d(t));
  } else {
    Value ws = (row0 != 0 || row1 != out) ? slice(ctx, w, {0}, {row0}, {row1}) : ctx.as_onnx(w);
    wt = ctx.op("Transpose", {ws}, {Attr::ints("perm", {1, 0})});
  }
  Value y = ctx.op("MatMul", {x, wt});
  if (!b.valid() || b.is_none()) return y;
  Value bb;
  if (b.is_const()) {
    HostTensor t = read_const(ctx, b, "bias");
    if (row0 != 0 || row1 != out) t = rows(t, row0, row1);
    bb = make_const(ctx, t);
  } else {
    bb = (row0 != 0 || row1 != out) ? slice(ctx, b, {0}, {row0}, {row1}) : ctx.as_onnx(b);
  }
  return ctx.op("Add", {y, bb});
}

struct AttentionResult {
  Value out;      // [B, L, E]
  Value weights;  // [B, H, L, S], or [B, L, S] averaged over heads; invalid unless asked for
};

// Multi-head attention on batch-first inputs q_in [B, L, E], k_in / v_in [B, S, E] (self-attention
// when they are the same), with PyTorch's packed in-projection qkv_w [3E, E] / qkv_b [3E] and the
// out-projection. mask: bool (true = not allowed) or float (added); mask_type 1 = key padding
// [B, S], 0 = attention mask [L, S] or [B, H, L, S] / anything broadcastable to the scores.
inline AttentionResult multi_head_attention(Ctx& ctx, const Value& q_in, const Value& k_in, const Value& v_in,
                                            t2o_dtype dt,
                                            int64_t embed, int64_t heads, const Value& qkv_w, const Value& qkv_b,
                                            const Value& out_w, const Value& out_b, const Value& mask,
                                            int64_t mask_type, bool need_weights, bool average) {
  if (heads <= 0 || embed % heads != 0)
    fail(ctx.kind() + ": embed_dim " + std::to_string(embed) + " not divisible by num_heads " + std::to_string(heads));
  int64_t hd = embed / heads;
  Value split_shape = ctx.const_i64({0, 0, heads, hd});  // 0 = copy B / L from the input
  auto heads_of = [&](const Value& y, std::vector<int64_t> perm) {
    Value r = ctx.op("Reshape", {y, split_shape});
    return ctx.op("Transpose", {r}, {Attr::ints("perm", perm)});
  };
  Value q = heads_of(linear_rows(ctx, q_in, qkv_w, qkv_b, 0, embed), {0, 2, 1, 3});             // [B,H,L,D]
  Value k = heads_of(linear_rows(ctx, k_in, qkv_w, qkv_b, embed, 2 * embed), {0, 2, 3, 1});    // [B,H,D,S]
  Value v = heads_of(linear_rows(ctx, v_in, qkv_w, qkv_b, 2 * embed, 3 * embed), {0, 2, 1, 3});  // [B,H,S,D]
  // PyTorch scales q (not the scores) by 1/sqrt(head_dim).
  q = ctx.op("Div", {q, ctx.scalar(dt, std::sqrt((double)hd))});
  Value scores = ctx.op("MatMul", {q, k});  // [B,H,L,S]
  if (mask.valid() && !mask.is_none()) {
    Value m = ctx.as_onnx(mask);
    int32_t mr = mask.rank();
    if (mask_type == 1) {
      if (mr != 2) unsupported(ctx.kind() + ": key padding mask of rank " + std::to_string(mr) + " (expected [B, S])");
      m = unsqueeze(ctx, m, {1, 2});  // [B,1,1,S]
    } else if (mr == 3) {
      // [B*H, L, S] -> [B, H, L, S]
      m = ctx.op("Reshape", {m, ctx.const_i64({-1, heads, 0, 0})});
    } else if (mr != 2 && mr != 4) {
      unsupported(ctx.kind() + ": attention mask of rank " + std::to_string(mr));
    }
    t2o_dtype md = mask.dtype();
    if (md == T2O_DTYPE_BOOL || md == T2O_DTYPE_UINT8) {
      if (md != T2O_DTYPE_BOOL) m = ctx.op("Cast", {m}, {Attr::i("to", T2O_DTYPE_BOOL)});
      scores = ctx.op("Where", {m, ctx.scalar(dt, -std::numeric_limits<double>::infinity()), scores});
    } else {
      scores = ctx.op("Add", {scores, m});
    }
  }
  Value p = softmax(ctx, "Softmax", scores, 3, 4);
  Value o = ctx.op("MatMul", {p, v});  // [B,H,L,D]
  o = ctx.op("Transpose", {o}, {Attr::ints("perm", {0, 2, 1, 3})});
  o = ctx.op("Reshape", {o, ctx.const_i64({0, 0, embed})});
  AttentionResult r;
  r.out = linear_rows(ctx, o, out_w, out_b);
  if (need_weights) r.weights = average ? reduce(ctx, "ReduceMean", p, {1}, false) : p;
  return r;
}

// Key/value heads repeated for grouped-query attention: x [..., H, S, D] with the heads at `axis`
// becomes [..., H * groups, S, D], head j serving heads j*groups .. j*groups+groups-1 (PyTorch's
// repeat_interleave(groups, dim=axis), and ONNX Attention-23's kv_num_heads). `rank` is x's rank.
inline Value repeat_kv_heads(Ctx& ctx, const Value& x, int64_t groups, int64_t axis, int64_t rank) {
  if (groups == 1) return x;
  std::vector<int64_t> reps((size_t)rank + 1, 1);
  reps[(size_t)axis + 1] = groups;
  Value tiled = ctx.op("Tile", {unsqueeze(ctx, x, {axis + 1}), ctx.const_i64(reps)});  // [..., H, g, S, D]
  // The new shape: x's dims with the head axis multiplied by `groups`.
  Value shape = ctx.op("Shape", {x});
  std::vector<Value> parts;
  if (axis > 0) parts.push_back(slice(ctx, shape, {0}, {0}, {axis}));
  parts.push_back(ctx.op("Mul", {slice(ctx, shape, {0}, {axis}, {axis + 1}), ctx.const_i64({groups})}));
  parts.push_back(slice(ctx, shape, {0}, {axis + 1}, {rank}));
  return ctx.op("Reshape", {tiled, ctx.op("Concat", parts, {Attr::i("axis", 0)})});
}

// Causal masks: a [rows, cols] bool tensor, true where key t is hidden from query s, i.e.
// t > s + offset (the complement of tril(ones(rows, cols), diagonal=offset)). Static sizes give a
// constant, valid at every opset.
inline Value causal_hidden_const(Ctx& ctx, int64_t rows, int64_t cols, int64_t offset) {
  std::vector<uint8_t> pattern((size_t)(rows * cols));
  for (int64_t s = 0; s < rows; ++s)
    for (int64_t t = 0; t < cols; ++t) pattern[(size_t)(s * cols + t)] = t > offset + s ? 1 : 0;
  return ctx.tensor(T2O_DTYPE_BOOL, {rows, cols}, pattern.data(), pattern.size());
}

// The same from run-time sizes (0-d int64 tensors; `offset` may be invalid for 0): built with Range,
// so it needs opset 11; `what` names what made the sizes dynamic, for the refusal below 11.
inline Value causal_hidden_dynamic(Ctx& ctx, const Value& rows, const Value& cols, const Value& offset,
                                   const std::string& what) {
  require(ctx, feature::kRange, what);
  Value zero = ctx.scalar_i64(0), one = ctx.scalar_i64(1);
  Value r = unsqueeze(ctx, ctx.op("Range", {zero, rows, one}), {1});
  Value c = unsqueeze(ctx, ctx.op("Range", {zero, cols, one}), {0});
  return ctx.op("Greater", {c, offset.valid() ? ctx.op("Add", {r, offset}) : r});
}

// Layer norm over the last axis: LayerNormalization from opset 17, else mean/variance by hand.
inline Value layer_norm_last(Ctx& ctx, const Value& x, int64_t rank, t2o_dtype dt, double eps, const Value& w, const Value& b) {
  bool has_w = w.valid() && !w.is_none(), has_b = b.valid() && !b.is_none();
  if (ctx.opset() >= 17 && has_w) {
    std::vector<Value> in{x, w};
    if (has_b) in.push_back(b);
    return ctx.op("LayerNormalization", in, {Attr::i("axis", -1), Attr::f("epsilon", eps)});
  }
  // Negative Reduce* axes need opset 11.
  Value mean = reduce(ctx, "ReduceMean", x, {rank - 1}, true);
  Value d = ctx.op("Sub", {x, mean});
  Value var = reduce(ctx, "ReduceMean", ctx.op("Mul", {d, d}), {rank - 1}, true);
  Value y = ctx.op("Div", {d, ctx.op("Sqrt", {ctx.op("Add", {var, ctx.scalar(dt, eps)})})});
  if (has_w) y = ctx.op("Mul", {y, w});
  if (has_b) y = ctx.op("Add", {y, b});
  return y;
}

// Exact (erf) GELU: x * 0.5 * (1 + erf(x / sqrt(2))).
inline Value gelu_erf(Ctx& ctx, const Value& x, t2o_dtype dt) {
  Value e = ctx.op("Erf", {ctx.op("Div", {x, ctx.scalar(dt, std::sqrt(2.0))})});
  Value h = ctx.op("Mul", {x, ctx.scalar(dt, 0.5)});
  return ctx.op("Mul", {h, ctx.op("Add", {e, ctx.scalar(dt, 1.0)})});
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_ATTENTION_HPP
