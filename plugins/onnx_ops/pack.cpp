// The onnx_ops pack: torch.onnx.ops (PyTorch >= 2.8) ops. See CMakeLists.txt.
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("onnx_ops", T2O_VERSION_STRING)
