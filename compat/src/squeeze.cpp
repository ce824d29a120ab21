// aten::squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)           (PyTorch 2.0)
// aten::squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)
// aten::squeeze_copy.dims(Tensor self, int[] dim) -> Tensor
// Removes the listed dims that have size 1 and leaves the others; dims are wrapped (a 0-d tensor
// takes 0 and -1) and may not repeat. squeeze.dims is a view of self, squeeze_ changes self's shape,
// squeeze_copy returns a contiguous copy.
#include "compat_common.hpp"

#include <algorithm>
#include <functional>

namespace t2o_compat {
namespace {

// The wrapped dims, highest first, so that squeezing one leaves the others' positions unchanged.
std::vector<int64_t> dims_high_first(const at::Tensor& self, at::IntArrayRef dim, const char* op) {
  auto dims = wrap_dims(dim, self.dim(), op);
  std::sort(dims.begin(), dims.end(), std::greater<int64_t>());
  return dims;
}

at::Tensor squeeze_dims(const at::Tensor& self, at::IntArrayRef dim) {
  at::Tensor out = self.alias();  // a view even when nothing is squeezed
  for (int64_t d : dims_high_first(self, dim, "aten::squeeze.dims")) out = out.squeeze(d);
  return out;
}

at::Tensor& squeeze_dims_(at::Tensor& self, at::IntArrayRef dim) {
  for (int64_t d : dims_high_first(self, dim, "aten::squeeze_.dims")) self.squeeze_(d);
  return self;
}

at::Tensor squeeze_copy_dims(const at::Tensor& self, at::IntArrayRef dim) {
  return squeeze_dims(self, dim).clone(at::MemoryFormat::Contiguous);
}

}  // namespace
}  // namespace t2o_compat

#if T2O_TORCH_LACKS(2, 0)  // squeeze.dims: PyTorch 2.0
TORCH_LIBRARY_FRAGMENT(aten, m) {
  m.def("squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)");
  m.def("squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)");
  m.def("squeeze_copy.dims(Tensor self, int[] dim) -> Tensor");
}

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("squeeze.dims", TORCH_FN(t2o_compat::squeeze_dims));
  m.impl("squeeze_.dims", TORCH_FN(t2o_compat::squeeze_dims_));
  m.impl("squeeze_copy.dims", TORCH_FN(t2o_compat::squeeze_copy_dims));
}
#endif
