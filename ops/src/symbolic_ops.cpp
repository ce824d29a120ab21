// onnx_symbolic::_symbolic and onnx_symbolic::_symbolic_multi_out: placeholders for an arbitrary ONNX
// node (torch.onnx.ops.symbolic / symbolic_multi_out). They compute nothing: each output is zeros of
// the declared shape and ONNX dtype, as PyTorch's kernels return. The exporter (plugins/onnx_ops)
// turns the call into the declared node.
#include "ops_common.hpp"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/version.h>

namespace t2o_ops {

at::ScalarType dtype_of_onnx(int64_t onnx_dtype) {
  switch (onnx_dtype) {
    case 1: return at::kFloat;
    case 2: return at::kByte;
    case 3: return at::kChar;
    case 5: return at::kShort;
    case 6: return at::kInt;
    case 7: return at::kLong;
    case 9: return at::kBool;
    case 10: return at::kHalf;
    case 11: return at::kDouble;
    case 14: return at::kComplexFloat;
    case 15: return at::kComplexDouble;
    case 16: return at::kBFloat16;
    default: break;
  }
  const char* missing = nullptr;
  switch (onnx_dtype) {
    case 4: missing = "UINT16"; break;
    case 12: missing = "UINT32"; break;
    case 13: missing = "UINT64"; break;
    case 17: missing = "FLOAT8E4M3FN"; break;
    case 18: missing = "FLOAT8E4M3FNUZ"; break;
    case 19: missing = "FLOAT8E5M2"; break;
    case 20: missing = "FLOAT8E5M2FNUZ"; break;
    case 23: missing = "FLOAT4E2M1"; break;
    default: break;
  }
  if (missing)
    TORCH_CHECK(false, "ONNX data type ", onnx_dtype, " (", missing,
                ") has no torch dtype in this libtorch (", TORCH_VERSION, ")");
  TORCH_CHECK(false, onnx_dtype,
              " is invalid as an ONNX data type. Valid values are [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, "
              "17, 18, 19, 20, 23]");
}

namespace {

// Argument positions shared by both schemas:
// (inputs, op_type, onnx_dtype(s), *, shape(s), attr_keys, attr_types, attr_pos, attr_ints, attr_floats,
//  attr_strs, metadata_props_keys, metadata_props_values, domain, version)
constexpr size_t kNumArgs = 14;
constexpr size_t kDtypeArg = 2;
constexpr size_t kShapeArg = 3;

}  // namespace

void symbolic_kernel(const c10::OperatorHandle&, torch::jit::Stack* stack) {
  auto args = torch::jit::last(*stack, kNumArgs);
  const int64_t onnx_dtype = args[kDtypeArg].toInt();
  const std::vector<int64_t> shape = arg_int_list(args[kShapeArg]);
  at::Tensor out = at::zeros(shape, at::TensorOptions().dtype(dtype_of_onnx(onnx_dtype)));
  torch::jit::drop(*stack, kNumArgs);
  stack->emplace_back(std::move(out));
}

void symbolic_multi_out_kernel(const c10::OperatorHandle&, torch::jit::Stack* stack) {
  auto args = torch::jit::last(*stack, kNumArgs);
  const std::vector<int64_t> dtypes = args[kDtypeArg].toIntVector();
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& s : args[kShapeArg].toListRef()) shapes.push_back(arg_int_list(s));
  TORCH_CHECK(shapes.size() == dtypes.size(), "Number of shapes (", shapes.size(), ") must match number of ONNX dtypes (",
              dtypes.size(), ")");
  std::vector<at::Tensor> outs;
  for (size_t i = 0; i < shapes.size(); ++i)
    outs.push_back(at::zeros(shapes[i], at::TensorOptions().dtype(dtype_of_onnx(dtypes[i]))));
  torch::jit::drop(*stack, kNumArgs);
  stack->emplace_back(c10::List<at::Tensor>(outs));
}

}  // namespace t2o_ops
