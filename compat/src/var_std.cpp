// var/std/var_mean/std_mean with a float correction (PyTorch 2.0 made `correction` a Scalar):
//   aten::var.t2o_scalar_correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
//       bool keepdim=False) -> Tensor                      (and std; var_mean/std_mean -> (Tensor, Tensor))
// libtorch 1.13 has these overloads with `int? correction`, which a saved `var(x, correction=0.5)`
// cannot match; this second overload, under a name of ours, takes the Scalar. An integral correction
// runs libtorch's own kernel (the algorithm PyTorch 2.6 runs); a fractional one computes in float64
// as PyTorch's kernels accumulate (Welford, or the two-pass full reduction), divides by
// max(0, N - correction) and rounds once to the input's dtype.
#include "compat_common.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace t2o_compat {
namespace {

struct Moments {
  at::Tensor var, mean;
};

Moments moments(const char* op, const at::Tensor& self, at::OptionalIntArrayRef dim,
                const c10::optional<at::Scalar>& correction, bool keepdim, bool take_sqrt, bool want_mean) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()) || at::isComplexType(self.scalar_type()), op,
              ": std and var only support floating point and complex dtypes");
  const double c = correction ? correction->toDouble() : 1.0;
  if (c == std::floor(c) && std::abs(c) < 9.0e15) {
    const c10::optional<int64_t> ic = int64_t(c);
    if (want_mean) {
      auto r = take_sqrt ? at::std_mean(self, dim, ic, keepdim) : at::var_mean(self, dim, ic, keepdim);
      return {std::get<0>(r), std::get<1>(r)};
    }
    return {take_sqrt ? at::std(self, dim, ic, keepdim) : at::var(self, dim, ic, keepdim), at::Tensor()};
  }
  TORCH_CHECK(!at::isComplexType(self.scalar_type()), op, ": a fractional correction on a complex tensor is not "
              "supported by torch2onnx's compatibility kernels");
  std::vector<int64_t> dims;
  if (dim.has_value() && !dim->empty()) {
    dims = wrap_dims(*dim, self.dim(), op);
  } else {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  }
  double n = 1;
  for (int64_t d : dims) n *= self.dim() ? self.size(d) : 1;
  at::Tensor x = self.to(at::kDouble);
  at::Tensor mean = dims.empty() ? x : x.mean(dims, /*keepdim=*/true);
  at::Tensor ss = dims.empty() ? (x - mean).square() : (x - mean).square().sum(dims, keepdim);
  at::Tensor var = ss / std::max(0.0, n - c);
  if (take_sqrt) var = var.sqrt();
  Moments out{var.to(self.scalar_type()), at::Tensor()};
  if (want_mean) {
    at::Tensor m = mean;
    if (!keepdim && !dims.empty()) {
      std::sort(dims.begin(), dims.end(), [](int64_t a, int64_t b) { return a > b; });
      for (int64_t d : dims) m = m.squeeze(d);
    }
    out.mean = m.to(self.scalar_type());
  }
  return out;
}

template <bool Sqrt>
at::Tensor var_std(const at::Tensor& self, at::OptionalIntArrayRef dim, const c10::optional<at::Scalar>& correction,
                   bool keepdim) {
  return moments(Sqrt ? "aten::std" : "aten::var", self, dim, correction, keepdim, Sqrt, false).var;
}

template <bool Sqrt>
std::tuple<at::Tensor, at::Tensor> var_std_mean(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                                const c10::optional<at::Scalar>& correction, bool keepdim) {
  auto m = moments(Sqrt ? "aten::std_mean" : "aten::var_mean", self, dim, correction, keepdim, Sqrt, true);
  return {m.var, m.mean};
}

}  // namespace
}  // namespace t2o_compat

#if T2O_TORCH_LACKS(2, 0)  // var/std with a Scalar correction: PyTorch 2.0
TORCH_LIBRARY_FRAGMENT(aten, m) {
  m.def("var.t2o_scalar_correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor");
  m.def("std.t2o_scalar_correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor");
  m.def("var_mean.t2o_scalar_correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
        "bool keepdim=False) -> (Tensor, Tensor)");
  m.def("std_mean.t2o_scalar_correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
        "bool keepdim=False) -> (Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("var.t2o_scalar_correction", TORCH_FN(t2o_compat::var_std<false>));
  m.impl("std.t2o_scalar_correction", TORCH_FN(t2o_compat::var_std<true>));
  m.impl("var_mean.t2o_scalar_correction", TORCH_FN(t2o_compat::var_std_mean<false>));
  m.impl("std_mean.t2o_scalar_correction", TORCH_FN(t2o_compat::var_std_mean<true>));
}
#endif
