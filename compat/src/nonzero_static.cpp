// aten::nonzero_static(Tensor self, *, int size, int fill_value=-1) -> Tensor     (PyTorch 2.1)
// nonzero() with a fixed number of rows: the first `size` indices of nonzero elements, row-major,
// then rows of fill_value; shape (size, self.dim()), int64. The meta kernel knows that shape
// without the data.
#include "compat_common.hpp"

namespace t2o_compat {
namespace {

at::Tensor nonzero_static(const at::Tensor& self, int64_t size, int64_t fill_value) {
  TORCH_CHECK(size >= 0, "aten::nonzero_static: 'size' must be an non-negative integer");
  at::Tensor out = at::empty({size, self.dim()}, self.options().dtype(at::kLong));
  at::Tensor found = at::nonzero(self);
  const int64_t n = found.size(0), copied = std::min(size, n);
  if (copied > 0) out.slice(0, 0, copied).copy_(found.slice(0, 0, copied));
  if (size > n) out.slice(0, n, size).fill_(fill_value);
  return out;
}

at::Tensor nonzero_static_meta(const at::Tensor& self, int64_t size, int64_t) {
  TORCH_CHECK(size >= 0, "aten::nonzero_static: 'size' must be an non-negative integer");
  return at::empty({size, self.dim()}, self.options().dtype(at::kLong));
}

}  // namespace
}  // namespace t2o_compat

#if T2O_TORCH_LACKS(2, 1)  // nonzero_static: PyTorch 2.1
TORCH_LIBRARY_FRAGMENT(aten, m) { m.def("nonzero_static(Tensor self, *, int size, int fill_value=-1) -> Tensor"); }

TORCH_LIBRARY_IMPL(aten, CPU, m) { m.impl("nonzero_static", TORCH_FN(t2o_compat::nonzero_static)); }

TORCH_LIBRARY_IMPL(aten, Meta, m) { m.impl("nonzero_static", TORCH_FN(t2o_compat::nonzero_static_meta)); }

TORCH_LIBRARY_IMPL(aten, AutogradMeta, m) { m.impl("nonzero_static", torch::CppFunction::makeFallthrough()); }
#endif
