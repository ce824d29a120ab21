// The bundled libtorch op library (libtorch2onnx_ops.so: the torch.onnx.ops ops with their kernels),
// loaded before any model so models calling those ops load and their example run computes.
// (A stopgap loader of its own; the general --load-library mechanism supersedes it.)
#ifndef TORCH2ONNX_CORE_OP_LIBRARY_HPP
#define TORCH2ONNX_CORE_OP_LIBRARY_HPP

#include <string>

namespace t2o::core {

// Loads <exe_dir>/../lib/libtorch2onnx_ops.so once (build and installed trees alike) unless
// TORCH2ONNX_NO_OPS_LIBRARY is set. Returns "" when loaded or absent, else why it failed to load.
std::string load_bundled_op_library(const std::string& exe_dir);

}  // namespace t2o::core

#endif
