// aten::scaled_dot_product_attention (PyTorch 2.x) as PyTorch 2.6 computes it, shared by the
// decomposition (opset9/scaled_dot_product_attention.cpp) and the Attention-23 form
// (opset23/scaled_dot_product_attention.cpp), and PyTorch's _safe_softmax (softmax whose rows of
// -inf give 0, not NaN). Header-only, SDK only.
//
// PyTorch's reference (the math kernel, which the CPU kernels agree with):
//   half/bfloat16 inputs are computed in float and the result cast back;
//   scores = q @ k^T * scale, scale = 1/sqrt(E) by default (E = query's last dim);
//   is_causal: ones(L, S).tril() -- aligned top-left when L != S -- with -inf where it is 0;
//   a bool mask adds -inf where it is false, a float mask is added; they broadcast to the scores;
//   enable_gqa: key/value heads (dim -3) repeat_interleave'd up to the query's;
//   probabilities = _safe_softmax(scores, -1) (a row that is all -inf gives 0), then @ v.
#ifndef TORCH2ONNX_PACK_COMMON_SDPA_HPP
#define TORCH2ONNX_PACK_COMMON_SDPA_HPP

#include <torch2onnx/plugin.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "attention.hpp"
#include "forms.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

// softmax(x) along `axis`, with 0 in every row (along `axis`) whose inputs are all -inf: PyTorch's
// _safe_softmax, which SDPA uses since 2.5. `p` (dtype p_dt) is the plain softmax of x (dtype x_dt).
inline Value zero_neg_inf_rows(Ctx& ctx, const Value& x, t2o_dtype x_dt, const Value& p, t2o_dtype p_dt, int64_t axis) {
  Value is_neg_inf = equal(ctx, x, ctx.scalar(x_dt, -std::numeric_limits<double>::infinity()), x_dt);
  Value all_rows = reduce(ctx, "ReduceMin", ctx.op("Cast", {is_neg_inf}, {Attr::i("to", T2O_DTYPE_INT32)}), {axis}, true);
  Value masked_rows = ctx.op("Cast", {all_rows}, {Attr::i("to", T2O_DTYPE_BOOL)});
  return ctx.op("Where", {masked_rows, ctx.scalar(p_dt, 0.0), p});
}

// A double as PyTorch prints it in a message (0.1, not 0.100000).
inline std::string number_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

struct SdpaArgs {
  Value q, k, v, mask;  // mask invalid when None
  // An attn_mask that is None on some run-time path (an ONNX optional), and an is_causal computed at
  // run time (a 0-d bool): PyTorch 2.14's scripted nn.MultiheadAttention passes None as the mask when
  // the mask it was given is causal, and is_causal then.
  Value optional_mask, causal_at_run_time;
  bool causal = false, gqa = false;
  std::optional<double> scale;
  int64_t rank = 0;  // query's rank (key's and value's are the same)
  t2o_dtype dt = T2O_DTYPE_UNDEFINED;
};

// Reads and checks the arguments; refuses, in one line, what PyTorch would reject or an export
// cannot keep.
// scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,
//     float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False)
inline SdpaArgs sdpa_args(Ctx& ctx) {
  const std::string op = ctx.kind();
  SdpaArgs a;
  a.q = ctx.input(0);
  a.k = ctx.input(1);
  a.v = ctx.input(2);
  if (ctx.input(3).is_optional()) {
    require(ctx, feature::kOptional, "attn_mask that is None on some run-time path");
    a.optional_mask = ctx.input(3);
    if (a.optional_mask.dtype() == T2O_DTYPE_UNDEFINED)
      unsupported(op + ": attn_mask is an optional whose element type is unknown");
  } else {
    a.mask = opt_input(ctx, 3);
  }
  auto constant = [&](int32_t i, const char* name) {
    Value v = ctx.input(i);
    if (!v.is_const()) unsupported(op + ": argument '" + name + "' is computed at run time");
    return v;
  };
  const double dropout_p = ctx.num_inputs() > 4 ? constant(4, "dropout_p").to_float() : 0.0;
  if (dropout_p != 0.0)
    unsupported(op + ": dropout_p=" + number_text(dropout_p) +
                ": PyTorch applies this dropout in eval mode too (F.scaled_dot_product_attention has no training "
                "flag), which an inference graph cannot do; pass dropout_p=0.0 when not training (e.g. "
                "`dropout_p=self.p if self.training else 0.0`) and trace in eval mode");
  if (ctx.num_inputs() > 5 && !ctx.input(5).is_const()) {
    // Computed at run time: the causal mask is applied where it is true. (PyTorch raises when it is
    // true beside a mask; a graph cannot, and applies both.)
    a.causal_at_run_time = typed(ctx, ctx.op("Cast", {ctx.as_onnx(ctx.input(5))}, {Attr::i("to", T2O_DTYPE_BOOL)}),
                                 T2O_DTYPE_BOOL, 0);
  } else {
    a.causal = ctx.num_inputs() > 5 && constant(5, "is_causal").to_bool();
  }
  if (ctx.num_inputs() > 6 && !ctx.input(6).is_none()) a.scale = constant(6, "scale").to_float();
  a.gqa = ctx.num_inputs() > 7 && constant(7, "enable_gqa").to_bool();

  a.rank = known_rank(ctx, a.q, "query", 2);
  known_rank(ctx, a.k, "key", 2);
  known_rank(ctx, a.v, "value", 2);
  if (a.k.rank() != a.rank || a.v.rank() != a.rank)
    unsupported(op + ": query, key and value of ranks " + std::to_string(a.rank) + ", " + std::to_string(a.k.rank()) +
                ", " + std::to_string(a.v.rank()) + " (the exporter handles equal ranks)");
  a.dt = a.q.dtype();
  if (!is_float_dtype(a.dt) || a.k.dtype() != a.dt || a.v.dtype() != a.dt)
    fail(op + ": query, key and value must have one floating-point dtype");
  const int32_t r = (int32_t)a.rank;
  auto differ = [](int64_t x, int64_t y) { return x >= 0 && y >= 0 && x != y; };
  if (differ(a.q.dim(r - 1), a.k.dim(r - 1)) || differ(a.k.dim(r - 2), a.v.dim(r - 2)))
    fail(op + ": query " + str(a.q.dims()) + ", key " + str(a.k.dims()) + " and value " + str(a.v.dims()) +
         " do not fit (query and key share E, key and value S)");
  if (a.gqa && r >= 3) {
    const int64_t hq = a.q.dim(r - 3), hk = a.k.dim(r - 3), hv = a.v.dim(r - 3);
    if (hq < 0 || hk < 0 || hv < 0)
      unsupported(op + ": enable_gqa with a dynamic number of heads (the repetition needs it at export time)");
    if (hk == 0 || hv == 0 || hq % hk != 0 || hq % hv != 0)
      fail(op + ": enable_gqa: " + std::to_string(hq) + " query heads are not a multiple of the " + std::to_string(hk) +
           " key / " + std::to_string(hv) + " value heads (PyTorch rejects it)");
  }
  if (a.mask.valid()) {
    if (a.causal)
      fail(op + ": attn_mask together with is_causal=True (PyTorch rejects it: \"Explicit attn_mask should not be set "
                "when is_causal=True\")");
    const t2o_dtype md = a.mask.dtype();
    if (md != T2O_DTYPE_BOOL && md != T2O_DTYPE_FLOAT && md != a.dt)
      fail(op + ": attn_mask neither bool, float32 nor of the query's dtype (PyTorch rejects it)");
    // The mask is added in place to the scores [..., L, S]: it must broadcast to them without growing them.
    const int64_t mr = known_rank(ctx, a.mask, "attn_mask");
    std::vector<int64_t> scores = a.q.dims();
    scores[(size_t)r - 1] = a.k.dim(r - 2);
    for (int32_t i = 0; i < r - 2; ++i)  // batch dims broadcast between query and key
      if (scores[(size_t)i] == 1) scores[(size_t)i] = a.k.dim(i);
    bool fits = mr >= 2 && mr <= r;
    for (int64_t i = 1; fits && i <= mr; ++i) {
      const int64_t m = a.mask.dim((int32_t)(mr - i)), s = scores[(size_t)(r - i)];
      fits = m < 0 || s < 0 || m == s || m == 1;
    }
    if (!fits)
      fail(op + ": attn_mask of shape " + str(a.mask.dims()) + " does not broadcast to the attention scores " +
           str(scores) + " ([..., L, S]; PyTorch rejects it)");
  }
  return a;
}

// The decomposition, exact at every opset (a dynamic L or S with is_causal needs Range: 11).
inline Value sdpa_decomposed(Ctx& ctx, const SdpaArgs& a) {
  const int64_t r = a.rank;
  const bool half = a.dt == T2O_DTYPE_FLOAT16 || a.dt == T2O_DTYPE_BFLOAT16;
  const t2o_dtype ct = half ? T2O_DTYPE_FLOAT : a.dt;  // PyTorch computes half types in float
  Value q = cast_to(ctx, ctx.as_onnx(a.q), ct), k = cast_to(ctx, ctx.as_onnx(a.k), ct),
        v = cast_to(ctx, ctx.as_onnx(a.v), ct);
  if (a.gqa && r >= 3) {
    const int64_t hq = a.q.dim((int32_t)r - 3);
    k = repeat_kv_heads(ctx, k, hq / a.k.dim((int32_t)r - 3), r - 3, r);
    v = repeat_kv_heads(ctx, v, hq / a.v.dim((int32_t)r - 3), r - 3, r);
  }
  Value scale;
  if (a.scale) {
    scale = ctx.scalar(ct, *a.scale);
  } else if (const int64_t e = a.q.dim((int32_t)r - 1); e >= 0) {
    scale = ctx.scalar(ct, 1.0 / std::sqrt((double)e));
  } else {  // E known at run time: 1/sqrt(E) in double, rounded to ct once, as the constant
    Value e_run = ctx.op("Cast", {dim_tensor(ctx, q, r - 1)}, {Attr::i("to", T2O_DTYPE_DOUBLE)});
    scale = ctx.op("Cast", {ctx.op("Div", {ctx.scalar(T2O_DTYPE_DOUBLE, 1.0), ctx.op("Sqrt", {e_run})})},
                   {Attr::i("to", ct)});
  }
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < r; ++i) perm.push_back(i);
  std::swap(perm[(size_t)r - 1], perm[(size_t)r - 2]);
  Value kt = ctx.op("Transpose", {k}, {Attr::ints("perm", perm)});
  Value scores = ctx.op("Mul", {ctx.op("MatMul", {q, kt}), scale});
  const double neg_inf = -std::numeric_limits<double>::infinity();
  if (a.causal || a.causal_at_run_time.valid()) {
    const int64_t rows = a.q.dim((int32_t)r - 2), cols = a.k.dim((int32_t)r - 2);
    Value hidden = rows >= 0 && cols >= 0
                       ? causal_hidden_const(ctx, rows, cols, 0)
                       : causal_hidden_dynamic(ctx, dim_tensor(ctx, q, r - 2), dim_tensor(ctx, k, r - 2), Value(),
                                               "is_causal with a dynamic sequence length");
    if (a.causal_at_run_time.valid()) hidden = ctx.op("And", {hidden, a.causal_at_run_time});
    scores = ctx.op("Where", {hidden, ctx.scalar(ct, neg_inf), scores});
  }
  auto bias_of = [&](const Value& m, t2o_dtype md) {
    return md == T2O_DTYPE_BOOL ? ctx.op("Where", {m, ctx.scalar(ct, 0.0), ctx.scalar(ct, neg_inf)}) : cast_to(ctx, m, ct);
  };
  if (a.mask.valid()) scores = ctx.op("Add", {scores, bias_of(ctx.as_onnx(a.mask), a.mask.dtype())});
  if (a.optional_mask.valid()) {  // the scores plus the mask's bias if the optional holds one
    Value has = ctx.op("OptionalHasElement", {a.optional_mask});
    ctx.subgraph_begin("sdpa_mask");
    Value with_mask = ctx.subgraph_end(
        {ctx.op("Add", {scores, bias_of(ctx.op("OptionalGetElement", {a.optional_mask}), a.optional_mask.dtype())})});
    ctx.subgraph_begin("sdpa_no_mask");
    Value without = ctx.subgraph_end({ctx.op("Identity", {scores})});
    // Both branches keep the scores' shape (the mask broadcasts to it): known downstream too.
    scores = typed(ctx, ctx.op("If", {has}, {Attr::graph("then_branch", with_mask), Attr::graph("else_branch", without)}),
                   ct, scores.rank(), scores.dims());
  }
  Value p = softmax(ctx, "Softmax", scores, r - 1, r);
  // Only a mask can hide a whole row: under is_causal alone every query sees key 0.
  if (a.mask.valid() || a.optional_mask.valid()) p = zero_neg_inf_rows(ctx, scores, ct, p, ct, r - 1);
  return cast_to(ctx, typed(ctx, ctx.op("MatMul", {p, v}), ct), a.dt);
}

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_SDPA_HPP
