// Registers the torch.onnx.ops ops with libtorch's dispatcher, with the namespaces, names, overloads and
// schemas of PyTorch >= 2.8 (torch/onnx/ops/_symbolic_impl.py declares the first two explicitly;
// _impl.py's torch.library.custom_op infers the other two from their Python signatures), so that
// TorchScript files saved with these ops load here and models written against torch2onnx_ops save
// files that PyTorch >= 2.8 loads. The kernels are registered for CPU.
#include "ops_common.hpp"

#include <torch/library.h>

namespace t2o_ops {
namespace {

// The schemas, character for character as PyTorch >= 2.8 registers them.
constexpr const char* kSymbolicSchema =
    "_symbolic(Tensor?[] inputs, str op_type, int onnx_dtype, *, SymInt[] shape, str[] attr_keys, "
    "str[] attr_types, int[][] attr_pos, int[] attr_ints, float[] attr_floats, str[] attr_strs, "
    "str[] metadata_props_keys, str[] metadata_props_values, str domain='', int? version=None) -> Tensor";
constexpr const char* kSymbolicMultiOutSchema =
    "_symbolic_multi_out(Tensor?[] inputs, str op_type, int[] onnx_dtypes, *, SymInt[][] shapes, "
    "str[] attr_keys, str[] attr_types, int[][] attr_pos, int[] attr_ints, float[] attr_floats, str[] attr_strs, "
    "str[] metadata_props_keys, str[] metadata_props_values, str domain='', int? version=None) -> Tensor[]";
constexpr const char* kRotaryEmbeddingSchema =
    "RotaryEmbedding.opset23(Tensor x, Tensor cos_cache, Tensor sin_cache, Tensor? position_ids=None, *, "
    "bool interleaved=False, SymInt num_heads=0, SymInt rotary_embedding_dim=0) -> Tensor";
constexpr const char* kAttentionSchema =
    "Attention.opset23(Tensor Q, Tensor K, Tensor V, Tensor? attn_mask=None, Tensor? past_key=None, "
    "Tensor? past_value=None, *, bool is_causal=False, SymInt kv_num_heads=0, SymInt q_num_heads=0, "
    "SymInt qk_matmul_output_mode=0, float? scale=None, float softcap=0.0, SymInt? softmax_precision=None) "
    "-> (Tensor, Tensor, Tensor, Tensor)";

}  // namespace
}  // namespace t2o_ops

TORCH_LIBRARY_FRAGMENT(onnx_symbolic, m) {
  m.def(t2o_ops::kSymbolicSchema);
  m.def(t2o_ops::kSymbolicMultiOutSchema);
}

TORCH_LIBRARY_IMPL(onnx_symbolic, CPU, m) {
  m.impl("_symbolic", torch::CppFunction::makeFromBoxedFunction<&t2o_ops::symbolic_kernel>());
  m.impl("_symbolic_multi_out", torch::CppFunction::makeFromBoxedFunction<&t2o_ops::symbolic_multi_out_kernel>());
}

// libtorch 1.13's generic tracer cannot record these schemas' list arguments (trace_symbolic.cpp).
TORCH_LIBRARY_IMPL(onnx_symbolic, Tracer, m) {
  m.impl("_symbolic", torch::CppFunction::makeFromBoxedFunction<&t2o_ops::trace_symbolic_kernel>());
  m.impl("_symbolic_multi_out", torch::CppFunction::makeFromBoxedFunction<&t2o_ops::trace_symbolic_kernel>());
}

TORCH_LIBRARY_FRAGMENT(onnx, m) {
  m.def(t2o_ops::kRotaryEmbeddingSchema);
  m.def(t2o_ops::kAttentionSchema);
}

TORCH_LIBRARY_IMPL(onnx, CPU, m) {
  m.impl("RotaryEmbedding.opset23", torch::CppFunction::makeFromBoxedFunction<&t2o_ops::rotary_embedding_kernel>());
  m.impl("Attention.opset23", torch::CppFunction::makeFromBoxedFunction<&t2o_ops::attention_kernel>());
}
