// `torch2onnx decompose`: rewrites a TorchScript model's torch.onnx.ops calls (onnx::RotaryEmbedding,
// onnx::Attention) into ATen ops, so the saved model runs in a PyTorch without libtorch2onnx_ops.
#ifndef TORCH2ONNX_CORE_DECOMPOSE_HPP
#define TORCH2ONNX_CORE_DECOMPOSE_HPP

#include <cstddef>
#include <string>

namespace t2o::core {

struct DecomposeStats {
  size_t rotary_embedding = 0;  // calls rewritten
  size_t attention = 0;
  size_t symbolic_left = 0;     // onnx_symbolic::* calls, which have no ATen form and stay
};

// Loads model_in (the op library must be loaded), rewrites every onnx::RotaryEmbedding.opset23 and
// onnx::Attention.opset23 call in every method of every submodule into the ATen ops of
// python/torch2onnx_ops/_aten_decompositions.py (compiled here as TorchScript), and saves to
// model_out (a temporary file beside it, renamed: whole or absent). Throws ExportError.
DecomposeStats decompose_onnx_ops(const std::string& model_in, const std::string& model_out);

}  // namespace t2o::core

#endif
