// The default dtype a model was saved under (torch.set_default_dtype): recorded by torch2onnx.save
// in the .pt's signature, or given as --default-dtype; set in libtorch for the whole export, so the
// example runs and constant folding compute as PyTorch did, and handed to the packs
// (Ctx::default_dtype) so conversion does too.
#ifndef TORCH2ONNX_CORE_DEFAULT_DTYPE_HPP
#define TORCH2ONNX_CORE_DEFAULT_DTYPE_HPP

#include "torch2onnx/core/exporter.hpp"  // parse_default_dtype

#include <c10/util/typeid.h>

#include <string>

namespace t2o::core {

// torch.set_default_dtype(dtype) until the scope ends, then the previous default back. An empty
// dtype leaves the default as it is (float32).
class DefaultDtypeScope {
 public:
  explicit DefaultDtypeScope(const std::string& dtype);
  ~DefaultDtypeScope();
  DefaultDtypeScope(const DefaultDtypeScope&) = delete;
  DefaultDtypeScope& operator=(const DefaultDtypeScope&) = delete;

 private:
  caffe2::TypeMeta saved_;
};

}  // namespace t2o::core

#endif
