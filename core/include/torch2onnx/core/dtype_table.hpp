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

// Quantized element types (qint8, quint8, qint32). ONNX has no quantized tensor type: an exported
// quantized tensor is a FLOAT tensor holding its dequantized values, made by DequantizeLinear from its
// integer representation (INT8, UINT8, INT32; see plugins/quantized/README.md).
struct QuantizedDtypeEntry {
  c10::ScalarType torch;
  int32_t onnx_integer;  // the element type of its integer representation
  const char* name;      // the spelling of --input: "quint8"
};
const std::vector<QuantizedDtypeEntry>& quantized_dtype_table();
// The integer representation's ONNX type of a quantized ScalarType; nullopt for other types.
std::optional<int32_t> onnx_quantized_integer_dtype(c10::ScalarType t);
// The ONNX element type a TorchScript tensor of type t has once exported: onnx_dtype(t), or FLOAT
// for the quantized types.
std::optional<int32_t> onnx_value_dtype(c10::ScalarType t);

// Complex tensors have no ONNX type: they are exported as (real, imaginary) pairs, a real tensor of
// their parts' element type with a trailing dim of 2 (as torch.view_as_real gives). The parts' ONNX
// element type of COMPLEX64 (FLOAT) or COMPLEX128 (DOUBLE); 0 for any other type.
int32_t complex_parts_dtype(int32_t onnx);
inline bool is_complex_dtype(int32_t onnx) { return complex_parts_dtype(onnx) != 0; }

}  // namespace t2o::core

#endif
