// verify's comparison of a tensor from ONNX Runtime with libtorch's (TensorDiff), and the text both
// the report and the flow use for dtypes and shapes. The report's text and JSON are the public
// verify_report_text() / verify_report_json() (torch2onnx/core/verify.hpp), in verify_report.cpp.
#ifndef TORCH2ONNX_CORE_TOOLS_VERIFY_REPORT_HPP
#define TORCH2ONNX_CORE_TOOLS_VERIFY_REPORT_HPP

#include "torch2onnx/core/verify.hpp"

#include <ATen/core/Tensor.h>

#include <string>

namespace t2o::core {

// "[1,3,16,16]"
std::string shape_text(at::IntArrayRef dims);
// "float32[1,3,16,16]"
std::string type_text(const at::Tensor& t);

// Compares `onnx` with libtorch's `ref`: shape and dtype first (a difference there is the whole
// answer), then NaN and infinity positions (NaN matches only NaN, infinities must be equal) and the
// finite values, |onnx - ref| <= atol + rtol * |ref| (integers and bools exactly). `scale_atol`
// (intermediate values): atol raised to rtol/20 x the mean magnitude of `ref`, since the rounding
// error of an element near zero follows the scale of its whole tensor (a matmul's operands), not
// the element's own size; 1/20 keeps a planted tanh-for-erf gelu visible.
TensorDiff compare_tensors(const at::Tensor& onnx, const at::Tensor& ref, double rtol, double atol,
                           bool scale_atol = false);

}  // namespace t2o::core

#endif
