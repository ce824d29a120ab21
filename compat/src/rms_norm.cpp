// aten::rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor
// (PyTorch 2.4)
//
// As PyTorch 2.6's composite kernel: over the last len(normalized_shape) dims,
// y = x * rsqrt(mean(x^2) + eps), computed in the op-math type (float32 for float16/bfloat16, the
// input's dtype otherwise) and rounded to the input's dtype, then multiplied by weight when given
// (with ordinary type promotion). eps=None is the machine epsilon of the input's dtype (finfo(dtype).eps,
// also for float16/bfloat16), a given eps is first rounded to the input's dtype (PyTorch holds it in
// a scalar_t); both checked against PyTorch 2.6.
#include "compat_common.hpp"

#include <limits>

namespace t2o_compat {
namespace {

at::Tensor rms_norm(const at::Tensor& input, const std::vector<int64_t>& shape, const c10::optional<at::Tensor>& weight,
                    c10::optional<double> eps) {
  const char* op = "aten::rms_norm";
  const int64_t n = shape.size(), rank = input.dim();
  TORCH_CHECK(n >= 1, op, ": Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
              "element, but got normalized_shape = ", shape);
  TORCH_CHECK(!weight || weight->sizes().equals(shape), op, ": Expected weight to be of same shape as "
              "normalized_shape, but got weight of shape ", weight ? weight->sizes() : at::IntArrayRef{},
              " and normalized_shape = ", shape);
  TORCH_CHECK(rank >= n && input.sizes().slice(rank - n).equals(shape), op, ": Given normalized_shape=", shape,
              ", expected input with shape [*, ", at::IntArrayRef(shape), "], but got input of size", input.sizes());
  const auto type = input.scalar_type();
  TORCH_CHECK(at::isFloatingType(type), op, ": expected a floating-point input, got ", type);
  const bool reduced = type == at::kHalf || type == at::kBFloat16;
  const auto math_type = reduced ? at::kFloat : type;
  double e;
  if (!eps) {
    e = type == at::kDouble  ? std::numeric_limits<double>::epsilon()
        : type == at::kHalf  ? double(std::numeric_limits<c10::Half>::epsilon())
        : type == at::kBFloat16 ? double(std::numeric_limits<c10::BFloat16>::epsilon())
                                : double(std::numeric_limits<float>::epsilon());
  } else if (type == at::kHalf) {
    e = static_cast<float>(static_cast<c10::Half>(*eps));
  } else if (type == at::kBFloat16) {
    e = static_cast<float>(static_cast<c10::BFloat16>(*eps));
  } else {
    e = *eps;
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < n; ++i) dims.push_back(rank - i - 1);
  at::Tensor x = input.to(math_type);
  at::Tensor inv = at::rsqrt(at::pow(x, 2).mean(dims, /*keepdim=*/true).add_(e));
  at::Tensor y = x.mul(inv).to(type);
  return weight ? y.mul(*weight) : y;
}

void rms_norm_boxed(const c10::OperatorHandle&, torch::jit::Stack* stack) {
  auto args = torch::jit::last(*stack, 4);
  c10::optional<double> eps;
  if (!args[3].isNone()) eps = args[3].toDouble();
  at::Tensor out = rms_norm(args[0].toTensor(), arg_int_list(args[1]), arg_opt_tensor(args[2]), eps);
  torch::jit::drop(*stack, 4);
  stack->emplace_back(std::move(out));
}

}  // namespace
}  // namespace t2o_compat

#if T2O_TORCH_LACKS(2, 4)  // rms_norm: PyTorch 2.4
TORCH_LIBRARY_FRAGMENT(aten, m) {
  m.def("rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor");
}

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("rms_norm", torch::CppFunction::makeFromBoxedFunction<&t2o_compat::rms_norm_boxed>());
}
#endif
