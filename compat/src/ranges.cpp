// The Tensor overloads of linspace/logspace (PyTorch 2.1/2.2, pytorch#104889):
//   aten::linspace.{Tensor_Tensor,Tensor_Scalar,Scalar_Tensor}(start, end, int steps, *, ScalarType? dtype=None,
//       Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
//   aten::logspace.{…}(start, end, int steps, float base=10., *, …) -> Tensor
// start and end must be 0-d; the result is the Scalar overload's on their values (item()), with the
// factory's dtype (the default dtype when None) and device. libtorch 1.13 also loads such calls
// without these overloads (it converts 0-d tensors to Scalars); with them the call keeps PyTorch 2.6's
// schema. The meta kernels know the shape, (steps,), without the values.
#include "compat_common.hpp"

namespace t2o_compat {
namespace {

void check_0d(const char* op, const at::Tensor* start, const at::Tensor* end) {
  const int64_t s = start ? start->dim() : 0, e = end ? end->dim() : 0;
  TORCH_CHECK(s == 0 && e == 0, op, " only supports 0-dimensional start and end tensors, but got start with ", s,
              " dimension(s) and end with ", e, " dimension(s).");
}

template <bool Log>
at::Tensor make(const at::Scalar& start, const at::Scalar& end, int64_t steps, double base,
                c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                c10::optional<bool> pin_memory) {
  return Log ? at::logspace(start, end, steps, base, dtype, layout, device, pin_memory)
             : at::linspace(start, end, steps, dtype, layout, device, pin_memory);
}

template <bool Log>
at::Tensor make_meta(int64_t steps, c10::optional<at::ScalarType> dtype, const at::Tensor& like) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  return at::empty({steps}, like.options().dtype(dtype.value_or(c10::typeMetaToScalarType(at::get_default_dtype()))));
}

#define T2O_RANGE_OVERLOADS(NAME, LOG, BASE_PARAM, BASE)                                                            \
  at::Tensor NAME##_tt(const at::Tensor& start, const at::Tensor& end, int64_t steps BASE_PARAM,                   \
                       c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,                      \
                       c10::optional<at::Device> device, c10::optional<bool> pin) {                                \
    check_0d("aten::" #NAME, &start, &end);                                                                        \
    return make<LOG>(start.item(), end.item(), steps, BASE, dtype, layout, device, pin);                           \
  }                                                                                                                \
  at::Tensor NAME##_ts(const at::Tensor& start, const at::Scalar& end, int64_t steps BASE_PARAM,                   \
                       c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,                      \
                       c10::optional<at::Device> device, c10::optional<bool> pin) {                                \
    check_0d("aten::" #NAME, &start, nullptr);                                                                     \
    return make<LOG>(start.item(), end, steps, BASE, dtype, layout, device, pin);                                  \
  }                                                                                                                \
  at::Tensor NAME##_st(const at::Scalar& start, const at::Tensor& end, int64_t steps BASE_PARAM,                   \
                       c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,                      \
                       c10::optional<at::Device> device, c10::optional<bool> pin) {                                \
    check_0d("aten::" #NAME, nullptr, &end);                                                                       \
    return make<LOG>(start, end.item(), steps, BASE, dtype, layout, device, pin);                                  \
  }                                                                                                                \
  at::Tensor NAME##_tt_meta(const at::Tensor& start, const at::Tensor& end, int64_t steps BASE_PARAM,              \
                            c10::optional<at::ScalarType> dtype, c10::optional<at::Layout>,                        \
                            c10::optional<at::Device>, c10::optional<bool>) {                                      \
    check_0d("aten::" #NAME, &start, &end);                                                                        \
    return make_meta<LOG>(steps, dtype, start);                                                                    \
  }                                                                                                                \
  at::Tensor NAME##_ts_meta(const at::Tensor& start, const at::Scalar&, int64_t steps BASE_PARAM,                  \
                            c10::optional<at::ScalarType> dtype, c10::optional<at::Layout>,                        \
                            c10::optional<at::Device>, c10::optional<bool>) {                                      \
    check_0d("aten::" #NAME, &start, nullptr);                                                                     \
    return make_meta<LOG>(steps, dtype, start);                                                                    \
  }                                                                                                                \
  at::Tensor NAME##_st_meta(const at::Scalar&, const at::Tensor& end, int64_t steps BASE_PARAM,                    \
                            c10::optional<at::ScalarType> dtype, c10::optional<at::Layout>,                        \
                            c10::optional<at::Device>, c10::optional<bool>) {                                      \
    check_0d("aten::" #NAME, nullptr, &end);                                                                       \
    return make_meta<LOG>(steps, dtype, end);                                                                      \
  }

#define T2O_COMMA ,
T2O_RANGE_OVERLOADS(linspace, false, , 10.0)
T2O_RANGE_OVERLOADS(logspace, true, T2O_COMMA double base, base)

}  // namespace
}  // namespace t2o_compat

#if T2O_TORCH_LACKS(2, 1)  // the Tensor overloads of linspace/logspace: PyTorch 2.1
TORCH_LIBRARY_FRAGMENT(aten, m) {
  const char* factory = "*, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor";
  for (const char* o : {"Tensor_Tensor(Tensor start, Tensor end", "Tensor_Scalar(Tensor start, Scalar end",
                        "Scalar_Tensor(Scalar start, Tensor end"}) {
    m.def((std::string("linspace.") + o + ", int steps, " + factory).c_str());
    m.def((std::string("logspace.") + o + ", int steps, float base=10., " + factory).c_str());
  }
}

TORCH_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("linspace.Tensor_Tensor", TORCH_FN(t2o_compat::linspace_tt));
  m.impl("linspace.Tensor_Scalar", TORCH_FN(t2o_compat::linspace_ts));
  m.impl("linspace.Scalar_Tensor", TORCH_FN(t2o_compat::linspace_st));
  m.impl("logspace.Tensor_Tensor", TORCH_FN(t2o_compat::logspace_tt));
  m.impl("logspace.Tensor_Scalar", TORCH_FN(t2o_compat::logspace_ts));
  m.impl("logspace.Scalar_Tensor", TORCH_FN(t2o_compat::logspace_st));
}

TORCH_LIBRARY_IMPL(aten, Meta, m) {
  m.impl("linspace.Tensor_Tensor", TORCH_FN(t2o_compat::linspace_tt_meta));
  m.impl("linspace.Tensor_Scalar", TORCH_FN(t2o_compat::linspace_ts_meta));
  m.impl("linspace.Scalar_Tensor", TORCH_FN(t2o_compat::linspace_st_meta));
  m.impl("logspace.Tensor_Tensor", TORCH_FN(t2o_compat::logspace_tt_meta));
  m.impl("logspace.Tensor_Scalar", TORCH_FN(t2o_compat::logspace_ts_meta));
  m.impl("logspace.Scalar_Tensor", TORCH_FN(t2o_compat::logspace_st_meta));
}

TORCH_LIBRARY_IMPL(aten, AutogradMeta, m) {
  for (const char* name : {"linspace.Tensor_Tensor", "linspace.Tensor_Scalar", "linspace.Scalar_Tensor",
                           "logspace.Tensor_Tensor", "logspace.Tensor_Scalar", "logspace.Scalar_Tensor"})
    m.impl(name, torch::CppFunction::makeFallthrough());
}
#endif
