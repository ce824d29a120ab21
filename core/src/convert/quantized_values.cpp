// Quantized values between ops that are not quantization-aware (see requantize_outputs).
//
// An exported quantized tensor is a FLOAT tensor of its dequantized values (plugins/quantized/README.md).
// ATen ops that PyTorch runs on quantized tensors (average pooling, upsampling, hardsigmoid, mean …)
// are converted by their float symbolics; PyTorch's quantized kernels round their results to the
// output's grid, so each such result goes through QuantizeLinear → DequantizeLinear with the scale and
// zero point the example run saw, as torch.onnx's quantized_args does. Ops whose results are values of
// their input (views, max pooling, relu, concatenation of same-grid tensors) are already on the grid.
#include "convert/quantized_values.hpp"

#include <onnx/onnx_pb.h>

#include <set>
#include <string>

namespace t2o::core {

namespace {

const std::set<std::string>& on_the_grid() {
  static const std::set<std::string> ops = {
      "aten::view", "aten::reshape", "aten::flatten", "aten::permute", "aten::transpose", "aten::t",
      "aten::contiguous", "aten::squeeze", "aten::unsqueeze", "aten::max_pool1d", "aten::max_pool2d",
      "aten::max_pool3d", "aten::adaptive_max_pool2d", "aten::relu", "aten::relu_", "aten::slice", "aten::select",
      "aten::narrow", "aten::expand", "aten::expand_as", "aten::clone", "aten::detach", "aten::dropout",
      "aten::dropout_", "aten::feature_dropout", "aten::flip", "aten::pixel_shuffle", "aten::pixel_unshuffle",
      "aten::channel_shuffle", "aten::repeat", "aten::index_select", "aten::cat", "aten::stack",
      "aten::upsample_nearest1d", "aten::upsample_nearest2d", "aten::upsample_nearest3d", "aten::chunk",
      "aten::split", "aten::unbind", "aten::__getitem__", "aten::dequantize"};
  return ops;
}

bool quantization_aware(const std::string& kind) {
  for (const char* ns : {"quantized::", "torch2onnx::", "prim::"})
    if (kind.rfind(ns, 0) == 0) return true;
  return kind.rfind("aten::quantize_per_", 0) == 0 || kind.rfind("aten::fake_quantize", 0) == 0;
}

}  // namespace

int32_t quantized_dtype_of(const Session& s, const torch::jit::Value* v) {
  const TensorInfo* info = s.types.find(v);
  return info ? info->quantized : 0;
}

void requantize_outputs(Session& s, const torch::jit::Node* node) {
  const std::string kind = node->kind().toQualString();
  if (s.options.opset < 10 || quantization_aware(kind) || on_the_grid().count(kind)) return;
  bool quantized_input = false;
  for (auto* in : node->inputs()) quantized_input |= quantized_dtype_of(s, in) != 0;
  if (!quantized_input) return;
  for (size_t k = 0; k < node->outputs().size(); ++k) {
    auto* out = node->outputs()[k];
    const TensorInfo* info = s.types.find(out);
    if (!info || !s.values.is_bound(out) || info->q_scale <= 0) continue;
    const int32_t q = info->quantized;
    if (q != onnx::TensorProto::UINT8 && q != onnx::TensorProto::INT8) continue;  // QuantizeLinear's outputs
    t2o_value bound = s.values.handle_of(out);
    if (s.values.rec(bound).kind != T2O_KIND_TENSOR) continue;
    at::Tensor scale = at::scalar_tensor(info->q_scale, at::kFloat);
    at::Tensor zero_point = at::scalar_tensor(info->q_zero_point, q == onnx::TensorProto::UINT8 ? at::kByte : at::kChar);
    t2o_value inputs[3] = {s.values.materialize(bound), s.values.add_initializer(scale, onnx::TensorProto::FLOAT, "scale"),
                           s.values.add_initializer(zero_point, q, "zero_point")};
    std::string error;
    for (const char* op : {"QuantizeLinear", "DequantizeLinear"}) {
      t2o_node_spec spec{};
      spec.struct_size = sizeof spec;
      spec.op_type = op;
      spec.domain = "";
      spec.inputs = inputs;
      spec.num_inputs = 3;
      spec.num_outputs = 1;
      t2o_value result = T2O_NO_VALUE;
      if (emit_node(s.values, s.graph, spec, &result, error) == T2O_NO_VALUE)
        throw ExportError(kind + ": requantizing its output failed: " + error);
      inputs[0] = result;
    }
    s.values.bind_output(node, k, inputs[0]);
  }
}

}  // namespace t2o::core
