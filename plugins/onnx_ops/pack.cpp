// The onnx_ops pack: torch.onnx.ops (PyTorch >= 2.8) ops. See CMakeLists.txt.
#include <torch2onnx/plugin.hpp>

T2O_PLUGIN("onnx_ops", "1.0")
