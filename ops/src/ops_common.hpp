// Helpers shared by the kernels of libtorch2onnx_ops (the torch.onnx.ops ops for libtorch).
// Kernels are boxed: they read their arguments from the stack as IValues, so one kernel serves
// the schemas exactly as PyTorch >= 2.8 declares them (SymInt arguments arrive as ints).
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>
#include <c10/util/Exception.h>

#include <optional>
#include <string>
#include <vector>

namespace t2o_ops {

// An int argument declared SymInt: libtorch 1.13 hands it over as an int or as a SymInt.
inline int64_t arg_int(const c10::IValue& v) { return v.isSymInt() ? v.toSymInt().expect_int() : v.toInt(); }

inline std::optional<int64_t> arg_opt_int(const c10::IValue& v) {
  if (v.isNone()) return std::nullopt;
  return arg_int(v);
}

inline std::optional<double> arg_opt_float(const c10::IValue& v) {
  if (v.isNone()) return std::nullopt;
  return v.toDouble();
}

inline std::optional<at::Tensor> arg_opt_tensor(const c10::IValue& v) {
  if (v.isNone()) return std::nullopt;
  return v.toTensor();
}

// An int list declared SymInt[] (a shape).
inline std::vector<int64_t> arg_int_list(const c10::IValue& v) {
  if (v.isIntList()) return v.toIntVector();
  std::vector<int64_t> out;
  for (const auto& item : v.toListRef()) out.push_back(arg_int(item));
  return out;
}

// The torch dtype of an ONNX TensorProto.DataType number, as torch/onnx/ops/_dtype_mappings.py maps
// it; numbers PyTorch maps to dtypes this libtorch lacks are refused by name.
at::ScalarType dtype_of_onnx(int64_t onnx_dtype);

// The kernels (boxed), registered in register.cpp.
void symbolic_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack);
void symbolic_multi_out_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack);
void rotary_embedding_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack);
void attention_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack);
void trace_symbolic_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// The computations, callable directly (tests, meta shapes).
at::Tensor rotary_embedding_23(const at::Tensor& x, const at::Tensor& cos_cache, const at::Tensor& sin_cache,
                               const std::optional<at::Tensor>& position_ids, bool interleaved, int64_t num_heads,
                               int64_t rotary_embedding_dim);

struct AttentionOutputs {
  at::Tensor output, present_key, present_value, qk_output;
};
AttentionOutputs attention_23(const at::Tensor& Q, const at::Tensor& K, const at::Tensor& V,
                              const std::optional<at::Tensor>& attn_mask, const std::optional<at::Tensor>& past_key,
                              const std::optional<at::Tensor>& past_value, bool is_causal, int64_t kv_num_heads,
                              int64_t q_num_heads, int64_t qk_matmul_output_mode, std::optional<double> scale,
                              double softcap, std::optional<int64_t> softmax_precision);

}  // namespace t2o_ops
