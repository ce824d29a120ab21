// The ONNX type of a value that crosses a subgraph boundary or is declared in an attribute: a tensor
// (rank -1: no shape; dims unnamed, a loop body sees other sizes), a sequence of such tensors (no
// shape) or an optional of such a tensor (ABI 1.3).
#ifndef TORCH2ONNX_CORE_ONNX_TYPES_HPP
#define TORCH2ONNX_CORE_ONNX_TYPES_HPP

#include <onnx/onnx_pb.h>
#include <torch2onnx/plugin.h>

#include <cstdint>

namespace t2o::core {

inline void set_onnx_type(onnx::TypeProto* type, int32_t kind, int32_t dtype, int32_t rank) {
  onnx::TypeProto_Tensor* tensor = kind == T2O_KIND_SEQUENCE   ? type->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()
                                   : kind == T2O_KIND_OPTIONAL ? type->mutable_optional_type()->mutable_elem_type()->mutable_tensor_type()
                                                               : type->mutable_tensor_type();
  if (dtype) tensor->set_elem_type(dtype);
  if (kind == T2O_KIND_SEQUENCE || rank < 0) return;
  auto* shape = tensor->mutable_shape();
  for (int32_t i = 0; i < rank; ++i) shape->add_dim();
}

}  // namespace t2o::core

#endif
