// Quantized tensors between ops that are not quantization-aware (quantized_values.cpp).
#ifndef TORCH2ONNX_CORE_QUANTIZED_VALUES_HPP
#define TORCH2ONNX_CORE_QUANTIZED_VALUES_HPP

#include "convert/session.hpp"

namespace t2o::core {

// The integer type of a quantized TorchScript tensor seen by the example run, else 0.
int32_t quantized_dtype_of(const Session& s, const torch::jit::Value* v);

// After an op that is not quantization-aware ran on quantized inputs: rounds each per-tensor quantized
// output to its grid (QuantizeLinear/DequantizeLinear with the example run's scale and zero point),
// as PyTorch's quantized kernels do (average pooling, upsampling, ...).
void requantize_outputs(Session& s, const torch::jit::Node* node);

// A graph input of a quantized type in torch.onnx 1.13's form (unless --dequantized-io): three ONNX
// inputs NAME_value (its integer type, the tensor's shape), NAME_scale (double, 0-d) and NAME_zero_point
// (int64, 0-d), dequantized by Cast → DequantizeLinear; the TorchScript input is bound to the float
// result and its grid is a run-time one. A per-channel input is refused (torch.onnx has one scale).
void bind_quantized_input(Session& s, size_t index, const torch::jit::Value* tv, const std::string& name);

// After a node converted: the quantized outputs whose grid (scale, zero point) moved with the inputs'
// in the example runs take the run-time grid of the input whose grid they share; one that shares
// none cannot be exported and is refused.
void follow_run_time_grids(Session& s, const torch::jit::Node* node);

// A quantized result in torch.onnx 1.13's form: QuantizeLinear of its (float, dequantized) value,
// its scale (float, 0-d) and zero point (0-d, its integer type); per-tensor uint8/int8 only.
struct QuantizedResult {
  t2o_value value = T2O_NO_VALUE, scale = T2O_NO_VALUE, zero_point = T2O_NO_VALUE;
};
QuantizedResult quantized_result(Session& s, const torch::jit::Value* tv, t2o_value dequantized, size_t k);

}  // namespace t2o::core

#endif
