// `torch2onnx decompose`: rewrites a TorchScript model's torch.onnx.ops calls (onnx::RotaryEmbedding,
// onnx::Attention) into ATen ops, so the saved model runs in a PyTorch without libtorch2onnx_ops.
#ifndef TORCH2ONNX_CORE_DECOMPOSE_HPP
#define TORCH2ONNX_CORE_DECOMPOSE_HPP

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace t2o::core {

struct DecomposeStats {
  size_t rotary_embedding = 0;  // calls rewritten
  size_t attention = 0;
  size_t symbolic_left = 0;     // onnx_symbolic::* calls, which have no ATen form and stay
};

// Loads the kernel libraries (the default ones, libtorch2onnx_ops among them, when `default_libraries`;
// then `libraries`, as export's --load-library), loads model_in, rewrites every onnx::RotaryEmbedding.opset23 and
// onnx::Attention.opset23 call in every method of every submodule into the ATen ops of
// python/torch2onnx_ops/_aten_decompositions.py (compiled here as TorchScript), and saves to
// model_out (a temporary file beside it, renamed: whole or absent). Throws ExportError.
DecomposeStats decompose_onnx_ops(const std::string& model_in, const std::string& model_out,
                                  const std::vector<std::string>& libraries, bool default_libraries,
                                  const std::function<void(const std::string&)>& warn);

}  // namespace t2o::core

#endif
