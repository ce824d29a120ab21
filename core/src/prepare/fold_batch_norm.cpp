// Pass 13 (passes.hpp): in eval mode, a BatchNorm that follows a convolution, a transposed
// convolution or a linear layer whose weights are constants is folded into that layer's weight and
// bias, as torch.onnx's do_constant_folding (its eval peephole) does:
//
//   scale = bn_weight / sqrt(running_var + eps)          (bn_weight 1 when the BN has none)
//   W'    = W * scale   along the layer's output channels
//   b'    = (b - running_mean) * scale + bn_bias          (b 0 when the layer has none)
//
// computed with libtorch in the weights' dtype, in the order torch.nn.utils.fusion does it (so the
// folded weights are the ones PyTorch's own fusion gives). Only where it is exact: the layer's
// output feeds the BN alone, the BN reads batch statistics nowhere (training is a constant false),
// every parameter is a constant of the layer's dtype, and the BN's channel dim is the layer's
// output channel dim — dim 1 of a convolution's output; for a linear layer, only a 2-d output
// [N, C] (BatchNorm1d after Linear), which is why the pass runs after the example runs, on the
// ranks they recorded. Grouped transposed convolutions are folded per group.
#include "prepare/passes.hpp"

#include "common/deferred_tensors.hpp"

#include <ATen/ATen.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>


namespace t2o::core {

namespace {

using torch::jit::Node;
using torch::jit::Value;

bool is_kind(const Node* n, const char* qual) { return n->kind() == c10::Symbol::fromQualString(qual); }

// Folded weights from this size on are computed while the file is written.
constexpr size_t kDeferredBytes = size_t(1) << 20;

std::optional<at::Tensor> constant_tensor(const Value* v) {
  if (v->node()->kind() != c10::prim::Constant) return std::nullopt;
  auto iv = torch::jit::toIValue(v);
  if (!iv || !iv->isTensor()) return std::nullopt;
  return iv->toTensor();
}

bool constant_none(const Value* v) {
  if (v->node()->kind() != c10::prim::Constant) return false;
  auto iv = torch::jit::toIValue(v);
  return iv && iv->isNone();
}

std::optional<bool> constant_bool(const Value* v) {
  if (v->node()->kind() != c10::prim::Constant) return std::nullopt;
  auto iv = torch::jit::toIValue(v);
  if (!iv || !iv->isBool()) return std::nullopt;
  return iv->toBool();
}

std::optional<int64_t> constant_int(const Value* v) {
  if (v->node()->kind() != c10::prim::Constant) return std::nullopt;
  auto iv = torch::jit::toIValue(v);
  if (!iv || !iv->isInt()) return std::nullopt;
  return iv->toInt();
}

std::optional<double> constant_number(const Value* v) {
  if (v->node()->kind() != c10::prim::Constant) return std::nullopt;
  auto iv = torch::jit::toIValue(v);
  if (!iv) return std::nullopt;
  if (iv->isDouble()) return iv->toDouble();
  if (iv->isInt()) return double(iv->toInt());
  return std::nullopt;
}

// What a foldable layer is: where its weight and bias are among its inputs, and along which dims of
// the weight its output channels run.
struct Layer {
  size_t weight = 1, bias = 2;
  bool transposed = false;
  int64_t groups = 1;
  bool linear = false;
};

std::optional<Layer> layer_of(const Node* n) {
  Layer l;
  if (is_kind(n, "aten::_convolution")) {
    // (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, ...)
    auto transposed = constant_bool(n->input(6));
    auto groups = constant_int(n->input(8));
    if (!transposed || !groups) return std::nullopt;
    l.transposed = *transposed;
    l.groups = *groups;
    return l;
  }
  if (is_kind(n, "aten::conv1d") || is_kind(n, "aten::conv2d") || is_kind(n, "aten::conv3d")) {
    // (input, weight, bias, stride, padding, dilation, groups); padding may be a string: any form.
    return l;
  }
  if (is_kind(n, "aten::conv_transpose1d") || is_kind(n, "aten::conv_transpose2d") ||
      is_kind(n, "aten::conv_transpose3d")) {
    // (input, weight, bias, stride, padding, output_padding, groups, dilation)
    auto groups = constant_int(n->input(6));
    if (!groups) return std::nullopt;
    l.transposed = true;
    l.groups = *groups;
    return l;
  }
  if (is_kind(n, "aten::linear")) {
    l.linear = true;
    return l;
  }
  return std::nullopt;
}

struct Folder {
  const std::shared_ptr<torch::jit::Graph>& graph;
  TypeTable& types;
  int folded = 0;

  bool try_fold(Node* bn) {
    // aten::batch_norm(input, weight?, bias?, running_mean?, running_var?, training, momentum, eps, cudnn)
    if (bn->inputs().size() != 9) return false;
    Value* x = bn->input(0);
    Node* layer_node = x->node();
    auto layer = layer_of(layer_node);
    if (!layer || x->uses().size() != 1 || layer_node->owningBlock() != bn->owningBlock()) return false;
    if (constant_bool(bn->input(5)) != std::optional<bool>(false)) return false;
    auto eps = constant_number(bn->input(7));
    auto mean = constant_tensor(bn->input(3));
    auto var = constant_tensor(bn->input(4));
    auto weight = constant_tensor(layer_node->input(layer->weight));
    if (!eps || !mean || !var || !weight) return false;
    std::optional<at::Tensor> bn_w, bn_b, bias;
    if (!constant_none(bn->input(1)) && !(bn_w = constant_tensor(bn->input(1)))) return false;
    if (!constant_none(bn->input(2)) && !(bn_b = constant_tensor(bn->input(2)))) return false;
    if (!constant_none(layer_node->input(layer->bias)) && !(bias = constant_tensor(layer_node->input(layer->bias))))
      return false;
    const auto dtype = weight->scalar_type();
    if (!at::isFloatingType(dtype) || weight->is_quantized()) return false;
    for (const auto* t : {&*mean, &*var})
      if (t->scalar_type() != dtype || t->dim() != 1) return false;
    for (const auto* t : {&bn_w, &bn_b, &bias})
      if (*t && ((*t)->scalar_type() != dtype || (*t)->dim() != 1)) return false;

    // Output channels of the layer, and the BN's channel dim must be them.
    int64_t out_channels = 0;
    if (layer->linear) {
      const TensorInfo* out = types.find(x);
      if (!out || !out->known_rank || out->dims.size() != 2 || weight->dim() != 2) return false;
      out_channels = weight->size(0);
    } else if (layer->transposed) {
      if (weight->dim() < 3 || layer->groups < 1 || weight->size(0) % layer->groups) return false;
      out_channels = weight->size(1) * layer->groups;
    } else {
      if (weight->dim() < 3) return false;
      out_channels = weight->size(0);
    }
    if (mean->size(0) != out_channels || var->size(0) != out_channels) return false;
    for (const auto* t : {&bn_w, &bn_b, &bias})
      if (*t && (*t)->size(0) != out_channels) return false;

    // torch.nn.utils.fusion.fuse_conv_bn_weights / fuse_linear_bn_weights, in the weights' dtype.
    at::NoGradGuard no_grad;
    const at::Tensor w_bn = bn_w ? *bn_w : at::ones_like(*mean);
    const at::Tensor b_bn = bn_b ? *bn_b : at::zeros_like(*mean);
    const at::Tensor b = bias ? *bias : at::zeros_like(*mean);
    const at::Tensor var_rsqrt = at::rsqrt(*var + *eps);
    const at::Tensor scale = w_bn * var_rsqrt;
    // W' row by row (rows along dim 0): a row's scale is its output channel's, or for a transposed
    // convolution ([in, out/groups, k...]) its group's run of output channels.
    const int64_t rank = weight->dim();
    auto fill = [w = *weight, scale, transposed = layer->transposed, groups = layer->groups, rank](
                    int64_t first, int64_t count, at::Tensor& out) {
      at::NoGradGuard no_grad;
      std::vector<int64_t> shape(rank, 1);
      shape[0] = count;
      at::Tensor row_scale;
      if (!transposed) {
        row_scale = scale.narrow(0, first, count).reshape(shape);
      } else {
        const int64_t in_per_group = w.size(0) / groups, out_per_group = w.size(1);
        const at::Tensor group_of_row = at::arange(first, first + count, at::kLong).div(in_per_group, "floor");
        shape[1] = out_per_group;
        row_scale = scale.reshape({groups, out_per_group}).index_select(0, group_of_row).reshape(shape);
      }
      at::mul_out(out, w.narrow(0, first, count), row_scale);
    };
    // A large W' is only registered here: the writer computes it block by block (see
    // common/deferred_tensors.hpp), so its memory is never written. A small one is computed now.
    at::Tensor new_w = at::empty(weight->sizes(), weight->options().memory_format(at::MemoryFormat::Contiguous));
    if (new_w.nbytes() >= kDeferredBytes && new_w.size(0) > 0) {
      deferred::defer(new_w, std::move(fill));
    } else {
      fill(0, new_w.size(0), new_w);
    }
    const at::Tensor new_b = (b - *mean) * var_rsqrt * w_bn + b_bn;

    torch::jit::WithInsertPoint guard(layer_node);
    Value* w_value = graph->insertConstant(new_w.contiguous());
    Value* b_value = graph->insertConstant(new_b.contiguous());
    // The initializers keep the layer's parameter names (conv1.weight, conv1.bias).
    Value* old_w = layer_node->input(layer->weight);
    Value* old_b = layer_node->input(layer->bias);
    if (old_w->hasDebugName()) w_value->setDebugName(old_w->debugName());
    if (old_b->hasDebugName()) b_value->setDebugName(old_b->debugName());
    else if (old_w->hasDebugName()) {
      std::string w_name = old_w->debugName();
      const std::string suffix = "weight";
      if (w_name.size() > suffix.size() && w_name.compare(w_name.size() - suffix.size(), suffix.size(), suffix) == 0)
        b_value->setDebugName(w_name.substr(0, w_name.size() - suffix.size()) + "bias");
    }
    layer_node->replaceInput(layer->weight, w_value);
    layer_node->replaceInput(layer->bias, b_value);
    for (Value* v : {w_value, b_value}) types.observe(v->unique(), v == w_value ? new_w : new_b);
    bn->output()->replaceAllUsesWith(x);
    bn->destroy();
    ++folded;
    return true;
  }

  void run(torch::jit::Block* block) {
    std::vector<Node*> bns;
    for (Node* n : block->nodes()) {
      for (auto* b : n->blocks()) run(b);
      if (is_kind(n, "aten::batch_norm")) bns.push_back(n);
    }
    for (Node* n : bns) try_fold(n);
  }
};

}  // namespace

int fold_batch_norm(const std::shared_ptr<torch::jit::Graph>& graph, TypeTable& types) {
  Folder f{graph, types};
  f.run(graph->block());
  if (f.folded) torch::jit::EliminateDeadCode(graph);
  return f.folded;
}

}  // namespace t2o::core
