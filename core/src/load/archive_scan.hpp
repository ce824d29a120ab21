// Finding the custom ops a TorchScript archive calls, without loading it: libtorch's loader stops
// at the first op it does not know, but users need the whole list.
#ifndef TORCH2ONNX_CORE_ARCHIVE_SCAN_HPP
#define TORCH2ONNX_CORE_ARCHIVE_SCAN_HPP

#include "torch2onnx/core/exporter.hpp"

#include <string>
#include <vector>

namespace t2o::core {

struct CustomOpUse {
  std::string op;  // "myvendor::fused_gelu"
  size_t count = 0;
  std::vector<std::string> locations;  // "code/__torch__/model.py:12", the first few
};

// Every `ops.NS.NAME(` call in the archive's serialized code whose op libtorch does not know,
// sorted by count (descending).
std::vector<CustomOpUse> unknown_custom_ops(const std::string& path);

// Loading failed because of custom ops no pack declares; names them all.
struct UnknownCustomOpsError : ExportError {
  UnknownCustomOpsError(const std::string& path, std::vector<CustomOpUse> uses);
  std::vector<CustomOpUse> ops;
};

}  // namespace t2o::core

#endif
