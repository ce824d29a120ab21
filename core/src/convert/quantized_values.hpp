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

}  // namespace t2o::core

#endif
