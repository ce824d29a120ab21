#include "torch2onnx/core/dtype_table.hpp"

#include <onnx/onnx_pb.h>

namespace t2o::core {

using onnx::TensorProto;

const std::vector<DtypeEntry>& dtype_table() {
  // ScalarTypes with no ONNX counterpart (ComplexHalf, quantized types, QUInt4x2/2x4) are absent
  // on purpose; ONNX's uint16/uint32/uint64 have no libtorch 1.13 counterpart.
  static const std::vector<DtypeEntry> table = {
      {c10::ScalarType::Float, TensorProto::FLOAT, "float32", "float"},
      {c10::ScalarType::Double, TensorProto::DOUBLE, "float64", "double"},
      {c10::ScalarType::Half, TensorProto::FLOAT16, "float16", "half"},
      {c10::ScalarType::BFloat16, TensorProto::BFLOAT16, "bfloat16", nullptr},
      {c10::ScalarType::Byte, TensorProto::UINT8, "uint8", nullptr},
      {c10::ScalarType::Char, TensorProto::INT8, "int8", nullptr},
      {c10::ScalarType::Short, TensorProto::INT16, "int16", "short"},
      {c10::ScalarType::Int, TensorProto::INT32, "int32", "int"},
      {c10::ScalarType::Long, TensorProto::INT64, "int64", "long"},
      {c10::ScalarType::Bool, TensorProto::BOOL, "bool", nullptr},
      {c10::ScalarType::ComplexFloat, TensorProto::COMPLEX64, "complex64", nullptr},
      {c10::ScalarType::ComplexDouble, TensorProto::COMPLEX128, "complex128", nullptr},
  };
  return table;
}

std::optional<int32_t> onnx_dtype(c10::ScalarType t) {
  for (const auto& e : dtype_table())
    if (e.torch == t) return e.onnx;
  return std::nullopt;
}

std::optional<c10::ScalarType> torch_dtype(int32_t onnx) {
  for (const auto& e : dtype_table())
    if (e.onnx == onnx) return e.torch;
  return std::nullopt;
}

std::optional<c10::ScalarType> dtype_from_name(const std::string& name) {
  for (const auto& e : dtype_table())
    if (name == e.name || (e.alias && name == e.alias)) return e.torch;
  for (const auto& e : quantized_dtype_table())
    if (name == e.name) return e.torch;
  return std::nullopt;
}

std::string dtype_name(c10::ScalarType t) {
  for (const auto& e : dtype_table())
    if (e.torch == t) return e.name;
  for (const auto& e : quantized_dtype_table())
    if (e.torch == t) return e.name;
  return c10::toString(t);
}

std::string dtype_names() {
  std::string out;
  for (const auto& e : dtype_table()) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  for (const auto& e : quantized_dtype_table()) out += std::string(", ") + e.name;
  return out;
}

const std::vector<QuantizedDtypeEntry>& quantized_dtype_table() {
  static const std::vector<QuantizedDtypeEntry> table = {
      {c10::ScalarType::QInt8, TensorProto::INT8, "qint8"},
      {c10::ScalarType::QUInt8, TensorProto::UINT8, "quint8"},
      {c10::ScalarType::QInt32, TensorProto::INT32, "qint32"},
  };
  return table;
}

std::optional<int32_t> onnx_quantized_integer_dtype(c10::ScalarType t) {
  for (const auto& e : quantized_dtype_table())
    if (e.torch == t) return e.onnx_integer;
  return std::nullopt;
}

std::optional<int32_t> onnx_value_dtype(c10::ScalarType t) {
  if (onnx_quantized_integer_dtype(t)) return TensorProto::FLOAT;
  return onnx_dtype(t);
}

int32_t complex_parts_dtype(int32_t onnx) {
  if (onnx == TensorProto::COMPLEX64) return TensorProto::FLOAT;
  if (onnx == TensorProto::COMPLEX128) return TensorProto::DOUBLE;
  return 0;
}

}  // namespace t2o::core
