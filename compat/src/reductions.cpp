// aten::all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor   (PyTorch 2.2)
// aten::any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor
// aten::_is_all_true(Tensor self) -> Tensor                                     (PyTorch 2.1)
// aten::_is_any_true(Tensor self) -> Tensor
// all/any over several dims at once: None means every dim, [] none at all (the input, as bool), dims
// are wrapped and may not repeat; the result is bool, uint8 for a uint8 input (as the one-dim
// overloads). Checked against PyTorch 2.6.
// _is_all_true/_is_any_true reduce a bool tensor to a 0-d bool.
#include "compat_common.hpp"

#include <algorithm>
#include <functional>

namespace t2o_compat {
namespace {

template <bool All>
at::Tensor reduce_dims(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim) {
  const char* op = All ? "aten::all.dims" : "aten::any.dims";
  const int64_t rank = self.dim();
  std::vector<int64_t> dims;
  if (dim.has_value() && dim->empty()) {
    at::Tensor nonzero = self.ne(0);
    return self.scalar_type() == at::kByte ? nonzero.to(at::kByte) : nonzero;
  }
  if (dim.has_value()) {
    dims = wrap_dims(*dim, rank, op);
  } else {
    for (int64_t d = 0; d < std::max<int64_t>(rank, 1); ++d) dims.push_back(d);
  }
  // Highest first: reducing one dim without keepdim leaves the lower ones where they were.
  std::sort(dims.begin(), dims.end(), std::greater<int64_t>());
  at::Tensor out = self;
  for (int64_t d : dims) out = All ? out.all(d, keepdim) : out.any(d, keepdim);
  return out;
}

at::Tensor is_all_true(const at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() == at::kBool, "aten::_is_all_true: expected a bool tensor, got ", self.scalar_type());
  return self.all();
}

at::Tensor is_any_true(const at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() == at::kBool, "aten::_is_any_true: expected a bool tensor, got ", self.scalar_type());
  return self.any();
}

}  // namespace
}  // namespace t2o_compat

// PyTorch 2.1 added _is_all_true/_is_any_true, 2.2 all.dims/any.dims.
#if T2O_TORCH_LACKS(2, 2)
TORCH_LIBRARY_FRAGMENT(aten, m) {
  m.def("all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor");
  m.def("any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor");
#if T2O_TORCH_LACKS(2, 1)
  m.def("_is_all_true(Tensor self) -> Tensor");
  m.def("_is_any_true(Tensor self) -> Tensor");
#endif
}

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("all.dims", TORCH_FN(t2o_compat::reduce_dims<true>));
  m.impl("any.dims", TORCH_FN(t2o_compat::reduce_dims<false>));
#if T2O_TORCH_LACKS(2, 1)
  m.impl("_is_all_true", TORCH_FN(t2o_compat::is_all_true));
  m.impl("_is_any_true", TORCH_FN(t2o_compat::is_any_true));
#endif
}
#endif
