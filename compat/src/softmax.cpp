// aten::_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor   (PyTorch 2.5)
// softmax, except that a slice along dim whose inputs are all -inf gives 0 instead of NaN: what
// scaled_dot_product_attention uses for fully masked rows. As PyTorch 2.6: softmax(self, dim, dtype),
// then zero where all(self == -inf) along dim.
#include "compat_common.hpp"

#include <limits>

namespace t2o_compat {

at::Tensor safe_softmax(const at::Tensor& self, int64_t dim, c10::optional<at::ScalarType> dtype) {
  at::Tensor out = at::softmax(self, dim, dtype);
  at::Tensor masked_rows = self.eq(-std::numeric_limits<double>::infinity()).all(dim, /*keepdim=*/true);
  return at::where(masked_rows, at::scalar_tensor(0.0, out.options()), out);
}

namespace {
// libtorch 1.13 has no meta kernel for where(): the shape and dtype of softmax's result.
at::Tensor safe_softmax_meta(const at::Tensor& self, int64_t dim, c10::optional<at::ScalarType> dtype) {
  wrap_dim(dim, self.dim(), "aten::_safe_softmax");
  return at::empty(self.sizes(), self.options().dtype(dtype.value_or(self.scalar_type())));
}
}  // namespace

}  // namespace t2o_compat

#if T2O_TORCH_LACKS(2, 5)  // _safe_softmax: PyTorch 2.5
TORCH_LIBRARY_FRAGMENT(aten, m) { m.def("_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor"); }

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("_safe_softmax", TORCH_FN(t2o_compat::safe_softmax));
}

TORCH_LIBRARY_IMPL(aten, Meta, m) { m.impl("_safe_softmax", TORCH_FN(t2o_compat::safe_softmax_meta)); }

TORCH_LIBRARY_IMPL(aten, AutogradMeta, m) { m.impl("_safe_softmax", torch::CppFunction::makeFallthrough()); }
#endif
