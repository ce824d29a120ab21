// aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,
//     float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor
// (public in PyTorch 2.0; scale 2.1; enable_gqa 2.5)
//
// As PyTorch 2.6's math backend (_scaled_dot_product_attention_math), which its fused CPU kernel
// agrees with: sqrt(scale) multiplies query and key before the product (scale defaults to
// 1/sqrt(E)), a bool mask becomes 0 / -inf in query's dtype, a float mask is added in place,
// is_causal is the top-left aligned mask tril(ones(L, S)) (for L != S too), enable_gqa repeats each
// key/value head for its group of query heads, and the softmax
// is _safe_softmax: a row with every score -inf gives 0, not NaN. float16/bfloat16 compute in
// float32 and round once at the end.
//
// is_causal with an attn_mask: PyTorch 2.6 on the CPU applies both when its fused kernel takes the
// call (fused_kernel_takes below) and refuses otherwise (its math backend); so does this kernel.
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

// Whether PyTorch 2.6's CPU backend choice (sdp::select_sdp_backend_cpp) picks the fused flash kernel
// rather than the math one: 4-D inputs of one batch size, one head count and one head size, non-empty
// sequences, unit last strides, and a 2-D or 4-D mask of broadcastable sizes. dropout_p is 0 here.
bool fused_kernel_takes(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                        const c10::optional<at::Tensor>& mask, bool enable_gqa) {
  if (enable_gqa || q.dim() != 4 || k.dim() != 4 || v.dim() != 4) return false;
  for (int64_t d : {0, 1, 3})
    if (k.size(d) != q.size(d) || v.size(d) != q.size(d)) return false;
  if (q.size(2) == 0 || k.size(2) == 0 || q.stride(3) != 1 || k.stride(3) != 1 || v.stride(3) != 1) return false;
  if (!mask) return true;
  const auto& m = *mask;
  if (m.dim() != 2 && m.dim() != 4) return false;
  if ((m.size(-2) != q.size(2) && m.size(-2) != 1) || (m.size(-1) != k.size(2) && m.size(-1) != 1)) return false;
  return m.dim() == 2 || ((m.size(0) == 1 || m.size(0) == q.size(0)) && (m.size(1) == 1 || m.size(1) == q.size(1)));
}

constexpr const char* op = "aten::scaled_dot_product_attention";

// The argument checks PyTorch makes before computing (shared by the CPU and meta kernels).
void check_arguments(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                     const c10::optional<at::Tensor>& attn_mask, double dropout_p, bool is_causal, bool enable_gqa) {
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
  TORCH_CHECK(!is_causal || !attn_mask || fused_kernel_takes(query, key, value, attn_mask, enable_gqa), op,
              ": an explicit attn_mask must not be set when is_causal=True (PyTorch's math backend, which takes "
              "these inputs, refuses it)");
  TORCH_CHECK(query.size(-1) == key.size(-1) && key.size(-2) == value.size(-2), op,
              ": query and key must have the same head size and key and value the same length, got query ",
              query.sizes(), ", key ", key.sizes(), ", value ", value.sizes());
  if (enable_gqa) {
    TORCH_CHECK(query.dim() >= 3 && key.dim() >= 3 && value.dim() >= 3, op, ": enable_gqa needs a head dim (-3)");
    const int64_t qh = query.size(-3), kh = key.size(-3), vh = value.size(-3);
    TORCH_CHECK((qh == kh && kh == vh) || (kh > 0 && vh > 0 && qh % kh == 0 && qh % vh == 0), op,
                ": number of heads in key and value must divide the number of heads in query, got ", qh, ", ", kh,
                " and ", vh);
  }
}

at::Tensor sdpa(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                const c10::optional<at::Tensor>& attn_mask, double dropout_p, bool is_causal,
                c10::optional<double> scale, bool enable_gqa) {
  check_arguments(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa);

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

  // A bool mask becomes 0 / -inf in query's own dtype (not the upcast one), as PyTorch converts it
  // before choosing a backend.
  c10::optional<at::Tensor> bias, causal;
  if (attn_mask && attn_mask->scalar_type() == at::kBool) {
    bias = at::where(attn_mask->logical_not(), -std::numeric_limits<double>::infinity(),
                     at::scalar_tensor(0.0, query.options()));
  } else if (attn_mask) {
    bias = *attn_mask;
  }
  if (is_causal) {
    at::Tensor keep = at::ones({q.size(-2), k.size(-2)}, q.options().dtype(at::kBool)).tril();
    causal = at::where(keep.logical_not(), -std::numeric_limits<double>::infinity(),
                       at::scalar_tensor(0.0, q.options()));
  }

  if (enable_gqa) {
    k = repeat_heads(k, q.size(-3) / k.size(-3));
    v = repeat_heads(v, q.size(-3) / v.size(-3));
  }
  at::Tensor scores = at::matmul(q, k.transpose(-2, -1) * factor);
  if (bias) scores.add_(*bias);
  if (causal) scores.add_(*causal);
  at::Tensor weights = safe_softmax(scores, -1, c10::nullopt);
  at::Tensor out = at::matmul(weights, v);
  return upcast ? out.to(out_type) : out;
}

// The output's shape without the arithmetic (libtorch 1.13 has no meta kernel for where() and
// logical_not(), which the CPU kernel uses): query's and the (repeated) key/value heads' batch dims
// broadcast, then (L, Ev), in query's dtype.
at::Tensor sdpa_meta(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                     const c10::optional<at::Tensor>& attn_mask, double dropout_p, bool is_causal,
                     c10::optional<double>, bool enable_gqa) {
  check_arguments(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa);
  auto batch = [&](const at::Tensor& t) {
    auto sizes = t.sizes().vec();
    sizes.resize(sizes.size() - 2);
    if (enable_gqa) sizes[sizes.size() - 1] = query.size(-3);
    return sizes;
  };
  auto sizes = at::infer_size(at::infer_size(batch(query), batch(key)), batch(value));
  sizes.push_back(query.size(-2));
  sizes.push_back(value.size(-1));
  return at::empty(sizes, query.options());
}

}  // namespace
}  // namespace t2o_compat

#if T2O_TORCH_LACKS(2, 0)  // scaled_dot_product_attention: PyTorch 2.0
TORCH_LIBRARY_FRAGMENT(aten, m) {
  m.def("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
        "float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor");
}

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("scaled_dot_product_attention", TORCH_FN(t2o_compat::sdpa));
}

TORCH_LIBRARY_IMPL(aten, Meta, m) { m.impl("scaled_dot_product_attention", TORCH_FN(t2o_compat::sdpa_meta)); }

// Meta tensors go past autograd to the meta kernel (otherwise the composite kernel takes them).
TORCH_LIBRARY_IMPL(aten, AutogradMeta, m) {
  m.impl("scaled_dot_product_attention", torch::CppFunction::makeFallthrough());
}
#endif
