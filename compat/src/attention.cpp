// aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,
//     float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor
// (public in PyTorch 2.0; scale 2.1; enable_gqa 2.5)
//
// As PyTorch 2.6's math backend (_scaled_dot_product_attention_math), which its fused CPU kernel
// agrees with: sqrt(scale) multiplies query and key before the product (scale defaults to
// 1/sqrt(E)), a bool mask becomes 0 / -inf in query's dtype, a float mask is added in place,
// is_causal is the top-left aligned mask tril(ones(L, S)) (for L != S too) and refuses a mask
// beside it, enable_gqa repeats each key/value head for its group of query heads, and the softmax
// is _safe_softmax: a row with every score -inf gives 0, not NaN. float16/bfloat16 compute in
// float32 and round once at the end.
//
// dropout_p > 0 is refused: PyTorch drops weights at random on every call, in eval mode too (the
// op has no training flag); an exported model cannot reproduce that, and a model meant for
// inference passes 0 there (`dropout_p=self.p if self.training else 0.0`).
#include "compat_common.hpp"

#include <cmath>
#include <limits>

namespace t2o_compat {

at::Tensor safe_softmax(const at::Tensor& self, int64_t dim, c10::optional<at::ScalarType> dtype);  // softmax.cpp

namespace {

// key/value heads repeated for grouped-query attention: head h serves query heads
// h*groups .. h*groups+groups-1 (repeat_interleave on dim -3, written with expand so the meta
// device can run it).
at::Tensor repeat_heads(const at::Tensor& t, int64_t groups) {
  if (groups == 1) return t;
  auto sizes = t.sizes().vec();
  const int64_t h = sizes.size() - 3;
  auto expanded = sizes;
  expanded.insert(expanded.begin() + h + 1, groups);
  sizes[h] *= groups;
  return t.unsqueeze(h + 1).expand(expanded).reshape(sizes);
}

at::Tensor sdpa(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                const c10::optional<at::Tensor>& attn_mask, double dropout_p, bool is_causal,
                c10::optional<double> scale, bool enable_gqa) {
  const char* op = "aten::scaled_dot_product_attention";
  TORCH_CHECK(query.scalar_type() == key.scalar_type() && query.scalar_type() == value.scalar_type(), op,
              ": expected query, key and value to have the same dtype, got ", query.scalar_type(), ", ",
              key.scalar_type(), " and ", value.scalar_type());
  TORCH_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, op,
              ": expected query, key and value to be at least 2-D, got ", query.dim(), "-D, ", key.dim(), "-D and ",
              value.dim(), "-D");
  if (attn_mask) {
    auto mt = attn_mask->scalar_type();
    TORCH_CHECK(mt == at::kBool || mt == at::kFloat || mt == query.scalar_type(), op,
                ": expected attn_mask to be bool, float32 or query's dtype ", query.scalar_type(), ", got ", mt);
  }
  TORCH_CHECK(!(dropout_p > 0.0), op, ": dropout_p=", dropout_p,
              " drops attention weights at random on every call, in eval mode too; torch2onnx exports inference: "
              "save the model with dropout_p=0.0 (e.g. dropout_p=self.p if self.training else 0.0)");
  TORCH_CHECK(!is_causal || !attn_mask, op, ": an explicit attn_mask must not be set when is_causal=True");

  const auto out_type = query.scalar_type();
  const bool upcast = out_type == at::kHalf || out_type == at::kBFloat16;
  at::Tensor q = upcast ? query.to(at::kFloat) : query;
  at::Tensor k = upcast ? key.to(at::kFloat) : key;
  at::Tensor v = upcast ? value.to(at::kFloat) : value;

  // The scale, split as sqrt(|scale|) on each side (PyTorch's order, for the same rounding).
  const bool negative = scale && *scale < 0.0;
  const double full = scale ? std::abs(*scale) : 1.0 / std::sqrt(double(q.size(-1)));
  const double factor = std::sqrt(full);
  q = q * (negative ? 0.0 - factor : factor);

  c10::optional<at::Tensor> bias;
  if (is_causal) {
    at::Tensor keep = at::ones({q.size(-2), k.size(-2)}, q.options().dtype(at::kBool)).tril();
    bias = at::where(keep.logical_not(), -std::numeric_limits<double>::infinity(),
                     at::scalar_tensor(0.0, q.options()));
  } else if (attn_mask && attn_mask->scalar_type() == at::kBool) {
    // Query's own dtype (not the upcast one), as PyTorch converts before its math backend.
    bias = at::where(attn_mask->logical_not(), -std::numeric_limits<double>::infinity(),
                     at::scalar_tensor(0.0, query.options()));
  } else if (attn_mask) {
    bias = *attn_mask;
  }

  if (enable_gqa) {
    TORCH_CHECK(q.dim() >= 3 && k.dim() >= 3 && v.dim() >= 3, op, ": enable_gqa needs a head dim (-3)");
    const int64_t qh = q.size(-3), kh = k.size(-3), vh = v.size(-3);
    TORCH_CHECK((qh == kh && kh == vh) || (kh > 0 && vh > 0 && qh % kh == 0 && qh % vh == 0), op,
                ": number of heads in key and value must divide the number of heads in query, got ", qh, ", ", kh,
                " and ", vh);
    k = repeat_heads(k, qh / kh);
    v = repeat_heads(v, qh / vh);
  }
  at::Tensor scores = at::matmul(q, k.transpose(-2, -1) * factor);
  if (bias) scores.add_(*bias);
  at::Tensor weights = safe_softmax(scores, -1, c10::nullopt);
  at::Tensor out = at::matmul(weights, v);
  return upcast ? out.to(out_type) : out;
}

}  // namespace
}  // namespace t2o_compat

TORCH_LIBRARY_FRAGMENT(aten, m) {
  m.def("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
        "float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor");
}

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("scaled_dot_product_attention", TORCH_FN(t2o_compat::sdpa));
}
