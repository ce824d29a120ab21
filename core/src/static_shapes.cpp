// Folds shape queries whose answer is fixed by the example shapes (aten::dim, aten::size on static
// dims, len(size(x))), then lets constant propagation resolve what depends on them, such as
// scripted models' `if x.dim() != 4: raise ...` checks. Dims marked dynamic (-1) are left alone.
#include "converter.hpp"

#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/loop_unrolling.h>
#include <torch/csrc/jit/passes/lower_tuples.h>
#include <torch/csrc/jit/passes/remove_mutation.h>

#include <functional>
#include <unordered_set>

namespace t2o::core {

namespace {

const TensorInfo* info_of(const std::unordered_map<torch::jit::Value*, TensorInfo>& types, torch::jit::Value* v) {
  auto it = types.find(v);
  return it == types.end() || !it->second.known_rank ? nullptr : &it->second;
}

bool all_static(const TensorInfo& info) {
  for (auto d : info.dims)
    if (d < 0) return false;
  return true;
}

// An If with no results whose blocks do nothing but raise (a TorchScript assertion, often with the
// message it formats) says nothing ONNX can run.
bool is_assertion(torch::jit::Node* node) {
  if (node->kind() != c10::prim::If || !node->outputs().empty()) return false;
  for (auto* block : node->blocks())
    for (auto* n : block->nodes())
      if (n->kind() != c10::prim::RaiseException && n->hasSideEffects()) return false;
  return true;
}

}  // namespace

void remove_assertions(const std::shared_ptr<torch::jit::Graph>& graph) {
  for (auto it = graph->nodes().begin(); it != graph->nodes().end();) {
    auto* node = *it;
    ++it;
    if (is_assertion(node)) node->destroy();
  }
  torch::jit::EliminateDeadCode(graph);
}

void fold_static_shapes(const std::shared_ptr<torch::jit::Graph>& graph,
                        const std::unordered_map<torch::jit::Value*, TensorInfo>& types) {
  bool changed = false;
  auto replace_with = [&](torch::jit::Node* node, const c10::IValue& value) {
    torch::jit::WithInsertPoint guard(node);
    auto* constant = graph->insertConstant(value);
    node->output()->replaceAllUsesWith(constant);
    changed = true;
  };
  // Every node, nested blocks included (the fast-path checks sit inside branches).
  std::vector<torch::jit::Node*> nodes;
  std::function<void(torch::jit::Block*)> collect = [&](torch::jit::Block* block) {
    for (auto* n : block->nodes()) {
      nodes.push_back(n);
      for (auto* b : n->blocks()) collect(b);
    }
  };
  collect(graph->block());
  for (auto* node : nodes) {
    if (node->outputs().size() != 1) continue;
    auto kind = node->kind();
    // The export context: no autograd, no autocast, dense CPU tensors. Folding these resolves the
    // fast-path/slow-path branches scripted modules (MultiheadAttention, Transformer layers) carry.
    static const std::unordered_set<std::string> always_false = {
        "aten::is_grad_enabled", "aten::is_autocast_enabled", "aten::is_autocast_cpu_enabled",
        "prim::is_cuda", "prim::requires_grad", "prim::is_nested", "prim::is_sparse", "prim::is_mkldnn",
        "prim::is_quantized", "prim::is_meta", "prim::is_vulkan", "prim::is_xpu", "prim::is_mps",
        "prim::is_sparse_csr", "prim::is_ort", "prim::is_ipu", "prim::is_hpu", "prim::is_xla", "prim::is_lazy"};
    if (always_false.count(kind.toQualString())) {
      replace_with(node, false);
      continue;
    }
    // `x is None` on a value that cannot be None.
    if ((kind == c10::aten::__is__ || kind == c10::aten::__isnot__) && node->inputs().size() == 2) {
      auto none = [](torch::jit::Value* v) { return v->type()->kind() == c10::TypeKind::NoneType; };
      auto never_none = [](torch::jit::Value* v) {
        auto k = v->type()->kind();
        return k != c10::TypeKind::NoneType && k != c10::TypeKind::OptionalType && k != c10::TypeKind::AnyType;
      };
      auto* a = node->input(0);
      auto* b = node->input(1);
      if ((none(a) && never_none(b)) || (none(b) && never_none(a))) {
        replace_with(node, kind == c10::aten::__isnot__);
        continue;
      }
    }
    if (kind == c10::aten::dim && node->inputs().size() == 1) {
      if (auto* info = info_of(types, node->input(0))) replace_with(node, (int64_t)info->dims.size());
    } else if (kind == c10::aten::size && node->inputs().size() == 1) {
      if (auto* info = info_of(types, node->input(0))) {
        if (all_static(*info)) {
          replace_with(node, c10::IValue(info->dims));
        } else {
          // len(x.size()) is the rank even when some dims are dynamic.
          auto uses = node->output()->uses();  // a copy: replacing edits use lists
          for (const auto& use : uses)
            if (use.user->kind() == c10::aten::len && use.user->inputs().size() == 1)
              replace_with(use.user, (int64_t)info->dims.size());
        }
      }
    } else if (kind == c10::aten::size && node->inputs().size() == 2) {
      auto* info = info_of(types, node->input(0));
      auto dim = torch::jit::constant_as<int64_t>(node->input(1));
      if (info && dim) {
        int64_t rank = (int64_t)info->dims.size();
        int64_t d = *dim < 0 ? *dim + rank : *dim;
        if (d >= 0 && d < rank && info->dims[(size_t)d] >= 0) replace_with(node, info->dims[(size_t)d]);
      }
    }
  }
  if (changed) {
    auto g = graph;
    torch::jit::ConstantPropagation(g);
    // Loops whose trip count is now constant (e.g. building a scales list from the static rank in
    // scripted F.interpolate) are unrolled; their list appends then become plain list constructions.
    if (torch::jit::UnrollConstantLoops(g)) {
      torch::jit::RemoveListMutation(g);
      torch::jit::ConstantPropagation(g);
    }
  }
  // Assertions left behind (their condition depends on dynamic dims or data) are dropped, as torch.onnx does.
  for (auto it = graph->nodes().begin(); it != graph->nodes().end();) {
    auto* node = *it;
    ++it;
    if (is_assertion(node)) node->destroy();
  }
  torch::jit::EliminateDeadCode(graph);
}

}  // namespace t2o::core
