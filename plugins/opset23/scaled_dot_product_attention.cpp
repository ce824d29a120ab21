// aten::scaled_dot_product_attention -> ONNX Attention (new in opset 23), where it computes what
// PyTorch 2.6 does; the exact decomposition of common/sdpa.hpp otherwise.
//
// Checked against ONNX Runtime 1.30's Attention-23 (CPU):
// - is_causal with L != S: hides key t from query s when t > s, PyTorch's top-left tril (no past
//   input is given, so ONNX Runtime's decode shortcut for a past does not apply);
// - a row that a mask hides entirely (bool all false, float all -inf) gives 0, as _safe_softmax;
// - kv_num_heads < q_num_heads repeats each key/value head for consecutive query heads, which is
//   enable_gqa's repeat_interleave (and, with one kv head, PyTorch's broadcast of it);
// - default scale 1/sqrt(head size) = PyTorch's 1/sqrt(E);
// - a mask must already have L rows and S columns (ONNX Runtime rejects [B, 1, 1, S] or [1, S],
//   which PyTorch broadcasts): it is expanded to [..., L, S] first;
// - 3-D inputs are [batch, seq, heads * size] to ONNX, [batch, seq, E] to PyTorch: the same with one
//   head (q_num_heads = kv_num_heads = 1), and a 3-D mask gets a heads axis.
// The decomposition stays for what Attention-23 would compute differently or not at all: an
// attn_mask None on some run-time path or an is_causal computed at run time (an attribute here), inputs
// that are not 3-D/4-D (PyTorch takes any rank >= 2), batch sizes that broadcast (Attention needs
// equal ones), query heads not a multiple of key/value heads, a scale <= 0 (ONNX Runtime refuses it),
// double inputs (not in Attention's types), a float32 mask beside a half-precision query.
#include <torch2onnx/plugin.hpp>

#include "common/sdpa.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

bool attention_computes_it(const SdpaArgs& a) {
  if (a.optional_mask.valid() || a.causal_at_run_time.valid()) return false;  // is_causal is an attribute
  if (a.rank != 3 && a.rank != 4) return false;
  if (a.dt != T2O_DTYPE_FLOAT && a.dt != T2O_DTYPE_FLOAT16 && a.dt != T2O_DTYPE_BFLOAT16) return false;
  if (a.scale && !(*a.scale > 0)) return false;
  // Attention's float mask has the query's type; PyTorch adds a float32 mask to a half query's
  // float32 scores.
  if (a.mask.valid() && a.mask.dtype() != T2O_DTYPE_BOOL && a.mask.dtype() != a.dt) return false;
  const int64_t b = a.q.dim(0);
  if (a.k.dim(0) != b || a.v.dim(0) != b) return false;  // equal, or all dynamic
  if (a.rank == 4) {
    const int64_t hq = a.q.dim(1), hk = a.k.dim(1);
    if (hq < 0 || hk <= 0 || a.v.dim(1) != hk || hq % hk != 0) return false;
    if (!a.gqa && hk != hq && hk != 1) return false;  // PyTorch would broadcast nothing else
  }
  return true;
}

}  // namespace

T2O_OPTIONALS_SYMBOLIC("aten::scaled_dot_product_attention", 23) {
  SdpaArgs a = sdpa_args(ctx);
  if (!attention_computes_it(a)) return ctx.set_output(0, sdpa_decomposed(ctx, a));
  std::vector<Attr> attrs;
  if (a.causal) attrs.push_back(Attr::i("is_causal", 1));
  if (a.scale) attrs.push_back(Attr::f("scale", *a.scale));
  if (a.rank == 3) attrs.push_back(Attr::i("q_num_heads", 1)), attrs.push_back(Attr::i("kv_num_heads", 1));
  Value mask;
  if (a.mask.valid()) {
    mask = ctx.as_onnx(a.mask);
    const int32_t mr = a.mask.rank(), r = (int32_t)a.rank;
    if (r == 3 && mr == 3) mask = unsqueeze(ctx, mask, {1});  // [N, L, S] -> [N, 1, L, S]
    const int64_t L = a.q.dim(r - 2), S = a.k.dim(r - 2);
    if (a.mask.dim(mr - 2) != L || a.mask.dim(mr - 1) != S || L < 0 || S < 0) {
      Value rows_cols = L >= 0 && S >= 0 ? ctx.const_i64({L, S})
                                         : ctx.op("Concat", {unsqueeze(ctx, dim_tensor(ctx, a.q, r - 2), {0}),
                                                             unsqueeze(ctx, dim_tensor(ctx, a.k, r - 2), {0})},
                                                  {Attr::i("axis", 0)});
      mask = ctx.op("Expand", {mask, rows_cols});
    }
  }
  ctx.set_output(0, ctx.op("Attention", {a.q, a.k, a.v, mask}, attrs));
}
