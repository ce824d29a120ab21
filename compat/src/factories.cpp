// aten::empty_permuted(SymInt[] size, int[] physical_layout, *, ScalarType? dtype=None, Layout? layout=None,
//     Device? device=None, bool? pin_memory=None) -> Tensor                        (PyTorch 2.1)
// An uninitialised tensor of shape `size` whose memory is laid out in the order physical_layout
// gives (outermost first): a contiguous tensor of the permuted sizes, permuted back.
#include "compat_common.hpp"

namespace t2o_compat {
namespace {

void empty_permuted_boxed(const c10::OperatorHandle&, torch::jit::Stack* stack) {
  auto args = torch::jit::last(*stack, 6);
  const std::vector<int64_t> size = arg_int_list(args[0]);
  const std::vector<int64_t> layout = args[1].toIntVector();
  const int64_t dim = size.size();
  TORCH_CHECK(dim == (int64_t)layout.size(), "aten::empty_permuted: Number of dimensions in size does not match the "
              "length of the physical_layout; i.e. len(size) = ", dim, " is not equal to len(physical_layout) = ",
              layout.size());
  std::vector<bool> seen(dim, false);
  std::vector<int64_t> physical(dim), inverse(dim);
  for (int64_t i = 0; i < dim; ++i) {
    const int64_t d = layout[i];
    TORCH_CHECK(d >= 0 && d < dim, "aten::empty_permuted: Dimension out of range (expected to be between 0 and ",
                dim - 1, ", but got ", d, " at index ", i, ")");
    TORCH_CHECK(!seen[d], "aten::empty_permuted: Duplicate dim not allowed");
    seen[d] = true;
    physical[i] = size[d];
    inverse[d] = i;
  }
  auto options = at::TensorOptions()
                     .dtype(args[2].toOptional<at::ScalarType>())
                     .layout(args[3].toOptional<at::Layout>())
                     .device(args[4].toOptional<at::Device>())
                     .pinned_memory(args[5].toOptional<bool>());
  at::Tensor out = at::empty(physical, options).permute(inverse);
  torch::jit::drop(*stack, 6);
  stack->emplace_back(std::move(out));
}

}  // namespace
}  // namespace t2o_compat

#if T2O_TORCH_LACKS(2, 1)  // empty_permuted: PyTorch 2.1
TORCH_LIBRARY_FRAGMENT(aten, m) {
  m.def("empty_permuted(SymInt[] size, int[] physical_layout, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None) -> Tensor");
}

// No tensor argument: the dispatcher finds no backend key, and a CompositeImplicitAutograd kernel is
// the one it runs then.
TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("empty_permuted", torch::CppFunction::makeFromBoxedFunction<&t2o_compat::empty_permuted_boxed>());
}
#endif
