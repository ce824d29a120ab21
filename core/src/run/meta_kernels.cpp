// Shape-only (meta device) kernels libtorch 1.13 lacks, so the example run can learn shapes without
// arithmetic. Each computes exactly the output shape of its CPU kernel; anything it can't handle
// throws, and the converter then falls back to a real run on the CPU.
#include <ATen/ATen.h>
#include <torch/library.h>

namespace {

at::Tensor convolution_overrideable_meta(const at::Tensor& input, const at::Tensor& weight,
                                         const c10::optional<at::Tensor>& /*bias*/, at::IntArrayRef stride,
                                         at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                                         at::IntArrayRef output_padding, int64_t groups) {
  const int64_t spatial = weight.dim() - 2;
  TORCH_CHECK(spatial >= 1 && input.dim() == weight.dim(), "meta convolution: unsupported ranks");
  auto at_ = [](at::IntArrayRef a, int64_t i) { return a.size() == 1 ? a[0] : a[i]; };
  std::vector<int64_t> out{input.size(0), transposed ? weight.size(1) * groups : weight.size(0)};
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t in = input.size(i + 2), k = weight.size(i + 2);
    const int64_t s = at_(stride, i), p = at_(padding, i), d = at_(dilation, i);
    if (transposed)
      out.push_back((in - 1) * s - 2 * p + d * (k - 1) + at_(output_padding, i) + 1);
    else
      out.push_back((in + 2 * p - d * (k - 1) - 1) / s + 1);
  }
  return at::empty(out, input.options());
}

at::Tensor index_select_meta(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  TORCH_CHECK(index.dim() <= 1, "meta index_select: index must be 0-d or 1-d");
  auto sizes = self.sizes().vec();
  if (sizes.empty()) return at::empty({}, self.options());
  if (dim < 0) dim += (int64_t)sizes.size();
  TORCH_CHECK(dim >= 0 && dim < (int64_t)sizes.size(), "meta index_select: dim out of range");
  sizes[(size_t)dim] = index.numel();
  return at::empty(sizes, self.options());
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm_meta(
    const at::Tensor& input, const c10::optional<at::Tensor>& /*weight*/, const c10::optional<at::Tensor>& /*bias*/,
    const c10::optional<at::Tensor>& /*running_mean*/, const c10::optional<at::Tensor>& /*running_var*/,
    bool training, double /*momentum*/, double /*eps*/) {
  TORCH_CHECK(input.dim() >= 2, "meta batch_norm: input rank < 2");
  const int64_t stats = training ? input.size(1) : 0;
  return {at::empty(input.sizes(), input.options()), at::empty({stats}, input.options()),
          at::empty({stats}, input.options())};
}

// Elementwise activations without meta kernels in 1.13: the result has the input's shape and dtype.
at::Tensor same_shape_meta(const at::Tensor& self) { return at::empty(self.sizes(), self.options()); }
at::Tensor hardtanh_meta(const at::Tensor& self, const at::Scalar&, const at::Scalar&) { return same_shape_meta(self); }

}  // namespace

TORCH_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("convolution_overrideable", TORCH_FN(convolution_overrideable_meta));
  m.impl("index_select", TORCH_FN(index_select_meta));
  m.impl("native_batch_norm", TORCH_FN(native_batch_norm_meta));
  m.impl("relu", TORCH_FN(same_shape_meta));
  m.impl("hardtanh", TORCH_FN(hardtanh_meta));
}

namespace t2o::core {
// Referenced by the converter so the linker keeps this file (and its registration) from the static library.
void link_meta_kernels() {}
}  // namespace t2o::core
