// Small private ops of PyTorch 2.x (reached through torch.ops.aten.* or aten-IR decompositions):
//   aten::_prelu_kernel(Tensor self, Tensor weight) -> Tensor                    (2.0)
//     self > 0 ? self : weight * self, weight broadcast to self's shape, same dtype.
//   aten::_assert_async.msg(Tensor self, str assert_msg) -> ()                   (2.1)
//     fails with assert_msg unless the one-element tensor is nonzero (its CPU kernel is synchronous);
//     on the meta device there is no value to check: nothing happens.
//   aten::_reshape_copy(Tensor self, SymInt[] size) -> Tensor                    (2.x)
//     reshape that always copies: a contiguous tensor of the new shape (-1 inferred).
#include "compat_common.hpp"

namespace t2o_compat {
namespace {

void check_prelu(const at::Tensor& self, const at::Tensor& weight) {
  const char* op = "aten::_prelu_kernel";
  TORCH_CHECK(self.scalar_type() == weight.scalar_type(), op, ": expected self and weight of the same dtype, got ",
              self.scalar_type(), " and ", weight.scalar_type());
  TORCH_CHECK(at::infer_size(self.sizes(), weight.sizes()) == self.sizes().vec(), op, ": weight of shape ",
              weight.sizes(), " does not broadcast to self's shape ", self.sizes());
}

at::Tensor prelu_kernel(const at::Tensor& self, const at::Tensor& weight) {
  check_prelu(self, weight);
  return at::where(self > 0, self, weight * self);
}

// libtorch 1.13 has no meta kernel for where().
at::Tensor prelu_kernel_meta(const at::Tensor& self, const at::Tensor& weight) {
  check_prelu(self, weight);
  return at::empty(self.sizes(), self.options());
}

void assert_async_msg(const at::Tensor& self, c10::string_view assert_msg) {
  TORCH_CHECK(self.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
  TORCH_CHECK(self.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
  TORCH_CHECK(self.is_nonzero(), assert_msg.empty() ? std::string("Assertion is failed") : std::string(assert_msg));
}

void assert_async_msg_meta(const at::Tensor&, c10::string_view) {}

void reshape_copy_boxed(const c10::OperatorHandle&, torch::jit::Stack* stack) {
  auto args = torch::jit::last(*stack, 2);
  at::Tensor self = args[0].toTensor();
  at::Tensor out = self.clone(at::MemoryFormat::Contiguous).view(arg_int_list(args[1]));
  torch::jit::drop(*stack, 2);
  stack->emplace_back(std::move(out));
}

}  // namespace
}  // namespace t2o_compat

// PyTorch 2.0 added _prelu_kernel, 2.1 _assert_async.msg and _reshape_copy.
#if T2O_TORCH_LACKS(2, 1)
TORCH_LIBRARY_FRAGMENT(aten, m) {
#if T2O_TORCH_LACKS(2, 0)
  m.def("_prelu_kernel(Tensor self, Tensor weight) -> Tensor");
#endif
  m.def("_assert_async.msg(Tensor self, str assert_msg) -> ()");
  m.def("_reshape_copy(Tensor self, SymInt[] size) -> Tensor");
}

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
#if T2O_TORCH_LACKS(2, 0)
  m.impl("_prelu_kernel", TORCH_FN(t2o_compat::prelu_kernel));
#endif
  m.impl("_reshape_copy", torch::CppFunction::makeFromBoxedFunction<&t2o_compat::reshape_copy_boxed>());
}

TORCH_LIBRARY_IMPL(aten, CPU, m) { m.impl("_assert_async.msg", TORCH_FN(t2o_compat::assert_async_msg)); }

TORCH_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("_assert_async.msg", TORCH_FN(t2o_compat::assert_async_msg_meta));
#if T2O_TORCH_LACKS(2, 0)
  m.impl("_prelu_kernel", TORCH_FN(t2o_compat::prelu_kernel_meta));
#endif
}

TORCH_LIBRARY_IMPL(aten, AutogradMeta, m) {
  m.impl("_assert_async.msg", torch::CppFunction::makeFallthrough());
#if T2O_TORCH_LACKS(2, 0)
  m.impl("_prelu_kernel", torch::CppFunction::makeFallthrough());
#endif
}
#endif
