// onnx::Attention.opset23 (torch.onnx.ops.attention) -> ONNX Attention-23 at opset >= 23 (all four
// outputs, so present_key/present_value exist whenever a past is given, as ONNX Runtime requires);
// below, its exact decomposition as ONNX Runtime 1.30 computes it: 3-D inputs split into heads,
// Concat of the past, grouped-query heads by Tile, MatMul·scale, softcap (Div, Tanh, Mul), then the
// bias (a boolean mask as Where(mask, 0, lowest); is_causal as Where over Range-built positions, key t
// hidden from query s when t > past + s, not for a single query after a non-empty past), Softmax,
// MatMul with V. Half types are computed in float.
//
// onnx::Attention.opset23(Tensor Q, Tensor K, Tensor V, Tensor? attn_mask=None, Tensor? past_key=None,
//     Tensor? past_value=None, *, bool is_causal=False, SymInt kv_num_heads=0, SymInt q_num_heads=0,
//     SymInt qk_matmul_output_mode=0, float? scale=None, float softcap=0.0, SymInt? softmax_precision=None)
//     -> (Tensor, Tensor, Tensor, Tensor)
#include "rope_attention.hpp"

#include "common/attention.hpp"

#include <cmath>
#include <limits>
#include <optional>

using namespace t2o;
using namespace t2o::onnx_ops;

namespace {

struct AttnArgs {
  Value q, k, v, mask, past_key, past_value;
  bool is_causal;
  int64_t kv_num_heads, q_num_heads, qk_mode;
  std::optional<double> scale;
  double softcap;
  std::optional<int64_t> softmax_precision;
};

AttnArgs read_args(Ctx& ctx) {
  AttnArgs a;
  a.q = ctx.input(0);
  a.k = ctx.input(1);
  a.v = ctx.input(2);
  for (int i = 3; i <= 5; ++i)
    if (!ctx.input(i).is_none()) (i == 3 ? a.mask : i == 4 ? a.past_key : a.past_value) = ctx.input(i);
  if (a.past_key.valid() != a.past_value.valid())
    unsupported(ctx.kind() + ": past_key and past_value must be given together");
  a.is_causal = const_int(ctx, 6, "is_causal") != 0;
  a.kv_num_heads = const_int(ctx, 7, "kv_num_heads");
  a.q_num_heads = const_int(ctx, 8, "q_num_heads");
  a.qk_mode = const_int(ctx, 9, "qk_matmul_output_mode");
  if (a.qk_mode < 0 || a.qk_mode > 3)
    unsupported(ctx.kind() + ": qk_matmul_output_mode=" + std::to_string(a.qk_mode) + " (0, 1, 2 or 3)");
  if (!ctx.input(10).is_none()) a.scale = const_float(ctx, 10, "scale");
  a.softcap = const_float(ctx, 11, "softcap");
  if (!ctx.input(12).is_none()) a.softmax_precision = const_int(ctx, 12, "softmax_precision");
  return a;
}

double lowest_of(t2o_dtype dt) {
  switch (dt) {
    case T2O_DTYPE_DOUBLE: return std::numeric_limits<double>::lowest();
    case T2O_DTYPE_FLOAT16: return -65504.0;
    case T2O_DTYPE_BFLOAT16: return -3.3895313892515355e38;
    default: return (double)std::numeric_limits<float>::lowest();
  }
}

// (batch, seq, heads*size) -> (batch, heads, seq, size)
Value split_heads(Ctx& ctx, const Value& x, int64_t heads, int64_t size) {
  Value r = ctx.op("Reshape", {x, ctx.const_i64({0, 0, heads, size})});
  return ctx.op("Transpose", {r}, {Attr::ints("perm", {0, 2, 1, 3})});
}

// Dim `axis` of x as a 1-element int64 tensor.
Value dim1(Ctx& ctx, const Value& x, int64_t axis) {
  return pack::slice(ctx, ctx.op("Shape", {x}), {0}, {axis}, {axis + 1});
}

void decompose(Ctx& ctx, const AttnArgs& a) {
  const int32_t rank = a.q.rank();
  const t2o_dtype dt = a.q.dtype();
  const t2o_dtype ct = compute_dtype(dt);
  if (rank != 3 && rank != 4) unsupported(ctx.kind() + ": Q must be 3-D or 4-D");
  Value Q, K, V;
  int64_t qh, kvh, head_size, v_head_size, q_seq;
  if (rank == 4) {
    qh = a.q.dim(1);
    kvh = a.k.dim(1);
    head_size = a.q.dim(3);
    v_head_size = a.v.dim(3);
    q_seq = a.q.dim(2);
    Q = a.q;
    K = a.k;
    V = a.v;
  } else {
    if (a.q_num_heads <= 0 || a.kv_num_heads <= 0)
      unsupported(ctx.kind() + ": q_num_heads and kv_num_heads must be given for 3-D inputs");
    qh = a.q_num_heads;
    kvh = a.kv_num_heads;
    if (a.q.dim(2) < 0 || a.v.dim(2) < 0) unsupported(ctx.kind() + ": hidden sizes must be static");
    head_size = a.q.dim(2) / qh;
    v_head_size = a.v.dim(2) / kvh;
    q_seq = a.q.dim(1);
    Q = split_heads(ctx, a.q, qh, head_size);
    K = split_heads(ctx, a.k, kvh, head_size);
    V = split_heads(ctx, a.v, kvh, v_head_size);
  }
  if (qh <= 0 || kvh <= 0 || head_size <= 0 || v_head_size <= 0 || qh % kvh != 0)
    unsupported(ctx.kind() + ": heads and head sizes must be static, q heads a multiple of kv heads");

  Value present_key = a.past_key.valid() ? ctx.op("Concat", {a.past_key, K}, {Attr::i("axis", 2)}) : ctx.as_onnx(K);
  Value present_value =
      a.past_value.valid() ? ctx.op("Concat", {a.past_value, V}, {Attr::i("axis", 2)}) : ctx.as_onnx(V);

  Value keys = cast_if(ctx, present_key, dt, ct), values = cast_if(ctx, present_value, dt, ct);
  if (qh != kvh) {  // kv head j serves query heads j*g .. j*g+g-1
    keys = pack::repeat_kv_heads(ctx, keys, qh / kvh, 1, 4);
    values = pack::repeat_kv_heads(ctx, values, qh / kvh, 1, 4);
  }
  const double scale =
      a.scale ? *a.scale : (double)(float)(1.0 / std::sqrt((double)head_size));  // ONNX Runtime: float
  Value kt = ctx.op("Transpose", {keys}, {Attr::ints("perm", {0, 1, 3, 2})});
  Value scores = ctx.op("Mul", {ctx.op("MatMul", {cast_if(ctx, Q, dt, ct), kt}), ctx.scalar(ct, scale)});
  Value qk_out = scores;
  if (a.softcap > 0) {
    Value cap = ctx.scalar(ct, a.softcap);
    scores = ctx.op("Mul", {ctx.op("Tanh", {ctx.op("Div", {scores, cap})}), cap});
  }
  if (a.qk_mode == 1) qk_out = scores;

  const double lowest = lowest_of(dt);
  Value bias;
  if (a.mask.valid()) {
    if (a.mask.dtype() == T2O_DTYPE_BOOL)
      bias = ctx.op("Where", {a.mask, ctx.scalar(ct, 0.0), ctx.scalar(ct, lowest)});
    else
      bias = cast_if(ctx, ctx.as_onnx(a.mask), a.mask.dtype(), ct);
  }
  if (a.is_causal) {
    const bool static_past = !a.past_key.valid() || a.past_key.dim(2) >= 0;
    const int64_t past_len = a.past_key.valid() ? a.past_key.dim(2) : 0;
    const bool static_q = q_seq >= 0;
    const bool skip_static = static_q && static_past && q_seq == 1 && past_len > 0;
    const int64_t total = static_past && a.k.dim(rank == 4 ? 2 : 1) >= 0
                              ? past_len + a.k.dim(rank == 4 ? 2 : 1) : -1;
    if (!skip_static) {
      Value hidden;
      if (static_q && total >= 0) {  // a constant pattern, valid at every opset
        hidden = pack::causal_hidden_const(ctx, q_seq, total, past_len);
      } else {
        Value q_len = pack::squeeze(ctx, dim1(ctx, Q, 2), {0});
        Value total_len = pack::squeeze(ctx, dim1(ctx, present_key, 2), {0});
        Value past = a.past_key.valid() ? pack::squeeze(ctx, dim1(ctx, a.past_key, 2), {0}) : ctx.scalar_i64(0);
        Value zero = ctx.scalar_i64(0), one = ctx.scalar_i64(1);
        hidden = pack::causal_hidden_dynamic(ctx, q_len, total_len, past, "is_causal with a dynamic sequence or past length");
        if (!static_q || q_seq == 1) {  // ONNX Runtime's decode shortcut, decided at run time
          Value skip = ctx.op("And", {ctx.op("Equal", {q_len, one}), ctx.op("Greater", {past, zero})});
          hidden = ctx.op("And", {hidden, ctx.op("Not", {skip})});
        }
      }
      Value base = bias.valid() ? bias : ctx.scalar(ct, 0.0);
      bias = ctx.op("Where", {hidden, ctx.scalar(ct, lowest), base});
    }
  }
  if (bias.valid()) scores = ctx.op("Add", {scores, bias});
  if (a.qk_mode == 2) qk_out = scores;
  Value probs;
  if (a.softmax_precision && *a.softmax_precision == 11 && ct != T2O_DTYPE_DOUBLE) {
    Value wide = ctx.op("Cast", {scores}, {Attr::i("to", T2O_DTYPE_DOUBLE)});
    probs = ctx.op("Cast", {pack::softmax(ctx, "Softmax", wide, 3, 4)}, {Attr::i("to", ct)});
  } else {
    probs = pack::softmax(ctx, "Softmax", scores, 3, 4);
  }
  if (a.qk_mode == 3) qk_out = probs;
  Value out = cast_if(ctx, ctx.op("MatMul", {probs, values}), ct, dt);
  if (rank == 3) {
    out = ctx.op("Transpose", {out}, {Attr::ints("perm", {0, 2, 1, 3})});
    out = ctx.op("Reshape", {out, ctx.const_i64({0, 0, qh * v_head_size})});
  }
  ctx.set_output(0, out);
  ctx.set_output(1, present_key);
  ctx.set_output(2, present_value);
  ctx.set_output(3, cast_if(ctx, qk_out, ct, dt));
}

}  // namespace

T2O_SYMBOLIC("onnx::Attention", 9) { decompose(ctx, read_args(ctx)); }

T2O_SYMBOLIC("onnx::Attention", 23) {
  AttnArgs a = read_args(ctx);
  if (!native_dtype(a.q.dtype())) {  // Attention-23's T1: float, float16, bfloat16
    decompose(ctx, a);
    return;
  }
  std::vector<Attr> attrs;
  if (a.is_causal) attrs.push_back(Attr::i("is_causal", 1));
  if (a.kv_num_heads != 0) attrs.push_back(Attr::i("kv_num_heads", a.kv_num_heads));
  if (a.q_num_heads != 0) attrs.push_back(Attr::i("q_num_heads", a.q_num_heads));
  if (a.qk_mode != 0) attrs.push_back(Attr::i("qk_matmul_output_mode", a.qk_mode));
  if (a.scale) attrs.push_back(Attr::f("scale", *a.scale));
  if (a.softcap != 0) attrs.push_back(Attr::f("softcap", a.softcap));
  if (a.softmax_precision) attrs.push_back(Attr::i("softmax_precision", *a.softmax_precision));
  std::vector<Value> outs =
      ctx.op_n("Attention", {a.q, a.k, a.v, a.mask, a.past_key, a.past_value}, 4, attrs);
  for (int i = 0; i < 4; ++i) ctx.set_output(i, outs[(size_t)i]);
}
