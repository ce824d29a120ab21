#include "signature/default_dtype.hpp"

#include <c10/core/DefaultDtype.h>

namespace t2o::core {

std::string parse_default_dtype(const std::string& text) {
  if (text == "float32" || text == "float" || text == "torch.float32") return "float32";
  if (text == "float64" || text == "double" || text == "torch.float64") return "float64";
  throw ExportError("default dtype '" + text + "' is neither float32 nor float64");
}

DefaultDtypeScope::DefaultDtypeScope(const std::string& dtype) : saved_(c10::get_default_dtype()) {
  if (dtype.empty()) return;
  c10::set_default_dtype(caffe2::TypeMeta::fromScalarType(parse_default_dtype(dtype) == "float64" ? c10::kDouble
                                                                                                 : c10::kFloat));
}

DefaultDtypeScope::~DefaultDtypeScope() { c10::set_default_dtype(saved_); }

}  // namespace t2o::core
