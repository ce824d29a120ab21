// The batch norm ops of PyTorch 2.x's aten IR (torch.export graphs; TorchScript models contain them
// only when their code calls torch.ops.aten.<op>):
//   aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean,
//       Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)   (2.0)
//   aten::_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, bool training,
//       float momentum, float eps) -> (Tensor, Tensor, Tensor)
//   aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias,
//       Tensor running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)   (2.1)
//   aten::_batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean,
//       Tensor(b!) running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)           (2.3)
//   aten::_batch_norm_no_update(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
//       Tensor? running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)
// All are native_batch_norm as PyTorch 2.6's CPU kernels call it (output, save_mean, save_invstd);
// the last two add the `reserve` output, an empty uint8 tensor on the CPU. Without training the
// saved statistics are empty (shape [0]) on the CPU; libtorch 1.13's meta kernels give them shape [C]:
// made empty here on every device, so the example run's meta pass sees the CPU's shapes.
#include "compat_common.hpp"

#include <tuple>

namespace t2o_compat {
namespace {

using Three = std::tuple<at::Tensor, at::Tensor, at::Tensor>;
using Four = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>;

Three batch_norm(const at::Tensor& input, const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias,
                 const c10::optional<at::Tensor>& running_mean, const c10::optional<at::Tensor>& running_var,
                 bool training, double momentum, double eps) {
  Three r = at::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
  if (training) return r;
  const auto options = std::get<1>(r).options();
  return {std::get<0>(r), at::empty({0}, options), at::empty({0}, options)};
}

Three legit(const at::Tensor& input, const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias,
            at::Tensor& running_mean, at::Tensor& running_var, bool training, double momentum, double eps) {
  return batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
}

Three legit_no_stats(const at::Tensor& input, const c10::optional<at::Tensor>& weight,
                     const c10::optional<at::Tensor>& bias, bool training, double momentum, double eps) {
  return batch_norm(input, weight, bias, c10::nullopt, c10::nullopt, training, momentum, eps);
}

Three legit_no_training(const at::Tensor& input, const c10::optional<at::Tensor>& weight,
                        const c10::optional<at::Tensor>& bias, const at::Tensor& running_mean,
                        const at::Tensor& running_var, double momentum, double eps) {
  return batch_norm(input, weight, bias, running_mean, running_var, false, momentum, eps);
}

Four with_reserve(Three r, const at::Tensor& input) {
  return {std::get<0>(r), std::get<1>(r), std::get<2>(r), at::empty({0}, input.options().dtype(at::kByte))};
}

Four with_update(const at::Tensor& input, const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias,
                 at::Tensor& running_mean, at::Tensor& running_var, double momentum, double eps) {
  return with_reserve(batch_norm(input, weight, bias, running_mean, running_var, true, momentum, eps), input);
}

Four no_update(const at::Tensor& input, const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias,
               const c10::optional<at::Tensor>& running_mean, const c10::optional<at::Tensor>& running_var,
               double momentum, double eps) {
  return with_reserve(batch_norm(input, weight, bias, running_mean, running_var, false, momentum, eps), input);
}

}  // namespace
}  // namespace t2o_compat

// PyTorch 2.0 added _native_batch_norm_legit (+ .no_stats), 2.1 _native_batch_norm_legit_no_training,
// 2.3 _batch_norm_with_update and _batch_norm_no_update.
#if T2O_TORCH_LACKS(2, 3)
TORCH_LIBRARY_FRAGMENT(aten, m) {
#if T2O_TORCH_LACKS(2, 0)
  m.def("_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
        "Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)");
  m.def("_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, bool training, "
        "float momentum, float eps) -> (Tensor, Tensor, Tensor)");
#endif
#if T2O_TORCH_LACKS(2, 1)
  m.def("_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, "
        "Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)");
#endif
  m.def("_batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
        "Tensor(b!) running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)");
  m.def("_batch_norm_no_update(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
        "Tensor? running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
#if T2O_TORCH_LACKS(2, 0)
  m.impl("_native_batch_norm_legit", TORCH_FN(t2o_compat::legit));
  m.impl("_native_batch_norm_legit.no_stats", TORCH_FN(t2o_compat::legit_no_stats));
#endif
#if T2O_TORCH_LACKS(2, 1)
  m.impl("_native_batch_norm_legit_no_training", TORCH_FN(t2o_compat::legit_no_training));
#endif
  m.impl("_batch_norm_with_update", TORCH_FN(t2o_compat::with_update));
  m.impl("_batch_norm_no_update", TORCH_FN(t2o_compat::no_update));
}
#endif
