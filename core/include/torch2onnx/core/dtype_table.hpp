// The one table between c10::ScalarType and ONNX TensorProto element types.
#ifndef TORCH2ONNX_CORE_DTYPE_TABLE_HPP
#define TORCH2ONNX_CORE_DTYPE_TABLE_HPP

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace t2o::core {

struct DtypeEntry {
  c10::ScalarType torch;
  int32_t onnx;            // onnx::TensorProto_DataType
  const char* name;        // the spelling of --input: "float32"
  const char* alias;       // another accepted spelling ("float"), or nullptr
};

// Every ScalarType ONNX can hold, exactly once.
const std::vector<DtypeEntry>& dtype_table();

std::optional<int32_t> onnx_dtype(c10::ScalarType t);
std::optional<c10::ScalarType> torch_dtype(int32_t onnx);
std::optional<c10::ScalarType> dtype_from_name(const std::string& name);
std::string dtype_name(c10::ScalarType t);
// Names accepted by --input, for error messages.
std::string dtype_names();

}  // namespace t2o::core

#endif
