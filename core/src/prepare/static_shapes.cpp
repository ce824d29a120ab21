// Folds queries whose answer is the same in every run of the exported graph: shapes fixed by the
// example shapes (aten::dim, aten::size on static dims, len(size(x))), element types (prim::dtype,
// is_floating_point), the export context (no autograd, CPU, not nested), `is` on values known to be
// (or not be) the same object, then lets constant propagation resolve what depends on them, such as
// scripted models' `if x.dim() != 4: raise ...` checks and MultiheadAttention's fast-path checks.
// Dims marked dynamic (-1) are left alone; data-dependent conditions stay control flow.
#include "torch2onnx/core/custom_ops.hpp"
#include "prepare/dict_writes.hpp"
#include "prepare/passes.hpp"

#include "torch2onnx/core/dtype_table.hpp"

#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/loop_unrolling.h>
#include <torch/csrc/jit/passes/peephole_list_idioms.h>
#include <torch/csrc/jit/passes/lower_tuples.h>
#include <torch/csrc/jit/passes/remove_mutation.h>

#include <functional>
#include <unordered_set>

namespace t2o::core {

namespace {

const TensorInfo* info_of(const TypeTable& types, torch::jit::Value* v) {
  const TensorInfo* info = types.find(v);
  return !info || !info->known_rank || info->list_elements ? nullptr : info;
}

bool all_static(const TensorInfo& info) {
  for (auto d : info.dims)
    if (d < 0) return false;
  return true;
}

// Whether a node changes something outside itself other than by raising: side effects, module
// attributes assigned (prim::SetAttr) or inputs written in place (`self.total.add_(x)`), also in
// nested blocks. Those must reach the module-state check, not vanish with an assertion.
bool changes_state(torch::jit::Node* n) {
  if (n->kind() == c10::prim::RaiseException) return false;
  if (n->hasSideEffects() || n->kind() == c10::prim::SetAttr) return true;
  if (const auto* schema = n->maybeSchema())
    for (const auto& arg : schema->arguments())
      if (arg.alias_info() && arg.alias_info()->isWrite()) return true;
  for (auto* block : n->blocks())
    for (auto* inner : block->nodes())
      if (changes_state(inner)) return true;
  return false;
}

// An If with no results whose blocks do nothing but raise (a TorchScript assertion, often with the
// message it formats) says nothing ONNX can run.
bool is_assertion(torch::jit::Node* node) {
  if (node->kind() != c10::prim::If || !node->outputs().empty()) return false;
  for (auto* block : node->blocks())
    for (auto* n : block->nodes())
      if (changes_state(n)) return false;
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

namespace {

// An Optional refined to its element type (prim::unchecked_cast) is the same runtime value.
torch::jit::Value* through_casts(torch::jit::Value* v) {
  while (v->node()->kind() == c10::prim::unchecked_cast) v = v->node()->input(0);
  return v;
}

// A graph input is its own ONNX input: never None once the example run fed it a tensor, and never
// the same object as another input or a constant.
bool is_graph_input(torch::jit::Value* v) { return v->node() == v->owningGraph()->param_node(); }

// The element type every run of the exported graph gives v: recorded by the example run (fixed by
// the ONNX input types), or carried by v's own JIT type (constants).
std::optional<c10::ScalarType> dtype_of(const TypeTable& types,
                                        torch::jit::Value* v) {
  v = through_casts(v);
  const TensorInfo* info = types.find(v);
  if (info && info->quantized != 0 && !info->list_elements) {  // dtype is FLOAT, the dequantized values' type
    for (const auto& q : quantized_dtype_table())
      if (q.onnx_integer == info->quantized) return q.torch;
    return std::nullopt;
  }
  if (info && info->dtype != 0 && !info->list_elements) return torch_dtype(info->dtype);
  if (auto tt = v->type()->cast<c10::TensorType>())
    if (auto st = tt->scalarType()) return *st;
  return std::nullopt;
}

// What `a is b` is in every run, if that is fixed.
std::optional<bool> identical(const TypeTable& types,
                              torch::jit::Value* a, torch::jit::Value* b) {
  a = through_casts(a);
  b = through_casts(b);
  if (a == b) return true;
  auto is_none = [](torch::jit::Value* v) { return v->type()->kind() == c10::TypeKind::NoneType; };
  auto never_none = [&](torch::jit::Value* v) {
    auto k = v->type()->kind();
    // A graph input the example run fed a tensor is a tensor in every run (an ONNX input).
    return (k != c10::TypeKind::NoneType && k != c10::TypeKind::OptionalType && k != c10::TypeKind::AnyType) ||
           (is_graph_input(v) && types.has(v));
  };
  if (is_none(a) && is_none(b)) return true;
  if ((is_none(a) && never_none(b)) || (is_none(b) && never_none(a))) return false;
  // Tensors that are new objects where they are made: graph inputs (each its own ONNX input), the
  // results of ops that always allocate, and of view ops that always build a new tensor. Not
  // contiguous(), to(), type_as() or dropout(), which may return their input. Two different such
  // values are never the same object; nor is one of them and a constant.
  auto fresh = [&](torch::jit::Value* v) {
    static const std::unordered_set<c10::Symbol> new_tensor = {
        c10::aten::transpose, c10::aten::permute, c10::aten::view, c10::aten::unsqueeze, c10::aten::add,
        c10::aten::sub, c10::aten::mul, c10::aten::div, c10::aten::linear, c10::aten::matmul, c10::aten::layer_norm,
        c10::aten::relu, c10::aten::gelu, c10::aten::tanh, c10::aten::sigmoid, c10::aten::softmax,
        c10::aten::embedding};
    return (is_graph_input(v) && types.has(v)) ||
           (new_tensor.count(v->node()->kind()) && v->type()->kind() == c10::TypeKind::TensorType);
  };
  auto tensor_constant = [](torch::jit::Value* v) {
    return v->node()->kind() == c10::prim::Constant && v->type()->kind() == c10::TypeKind::TensorType;
  };
  if ((fresh(a) && (fresh(b) || tensor_constant(b))) || (fresh(b) && tensor_constant(a))) return false;
  return std::nullopt;
}

// Queries whose answer is the export context's: no autograd, no autocast, dense strided CPU tensors.
const std::unordered_set<std::string>& always_false() {
  static const std::unordered_set<std::string> ops = {
      "aten::is_grad_enabled", "aten::is_autocast_enabled", "aten::is_autocast_cpu_enabled",
      "prim::is_cuda", "prim::requires_grad", "prim::is_nested", "aten::is_nested", "prim::is_sparse",
      "prim::is_mkldnn", "prim::is_quantized", "prim::is_meta", "prim::is_vulkan", "prim::is_xpu", "prim::is_mps",
      "prim::is_sparse_csr", "prim::is_ort", "prim::is_ipu", "prim::is_hpu", "prim::is_xla", "prim::is_lazy",
      "prim::is_mtia", "prim::is_maia"};  // PyTorch 2.x (the compatibility library's schemas)
  return ops;
}

// One sweep over every node, nested blocks included (the fast-path checks sit inside branches).
// Returns whether anything was replaced.
bool fold_known_facts(const std::shared_ptr<torch::jit::Graph>& graph,
                      const TypeTable& types) {
  bool changed = false;
  auto replace = [&](torch::jit::Node* node, const c10::IValue& value) {
    if (!node->output()->hasUses()) return;
    torch::jit::WithInsertPoint guard(node);
    auto* constant = graph->insertConstant(value);
    node->output()->replaceAllUsesWith(constant);
    changed = true;
  };
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
    size_t arity = node->inputs().size();
    if (always_false().count(kind.toQualString())) {
      replace(node, false);
    } else if ((kind == c10::aten::__is__ || kind == c10::aten::__isnot__) && arity == 2) {
      if (auto same = identical(types, node->input(0), node->input(1)))
        replace(node, kind == c10::aten::__is__ ? *same : !*same);
    } else if (kind == c10::prim::dtype && arity == 1) {
      if (auto st = dtype_of(types, node->input(0))) replace(node, (int64_t)*st);
    } else if (kind == c10::aten::is_floating_point && arity == 1) {
      if (auto st = dtype_of(types, node->input(0))) replace(node, c10::isFloatingType(*st));
    } else if (kind == c10::aten::is_complex && arity == 1) {
      if (auto st = dtype_of(types, node->input(0))) replace(node, c10::isComplexType(*st));
    } else if (kind == c10::aten::format) {
      // Pure, but constant propagation leaves it (its schema is conservative about side effects):
      // fast-path checks build their reason strings with it, then test whether one is empty.
      torch::jit::Stack stack;
      for (auto* input : node->inputs()) {
        auto value = torch::jit::toIValue(input);
        if (!value) break;
        stack.push_back(*value);
      }
      if (stack.size() == arity) {
        stack.emplace_back((int64_t)arity);  // a vararg op reads its input count from the stack
        try {
          node->getOperation()(stack);
          if (stack.size() == 1) replace(node, stack[0]);
        } catch (const std::exception&) {
          // A format string its arguments don't fit: left for the run to report.
        }
      }
    } else if (kind == c10::prim::device && arity == 1) {
      replace(node, c10::Device(c10::kCPU));
    } else if (kind == c10::prim::layout && arity == 1) {
      replace(node, (int64_t)c10::kStrided);
    } else if (kind == c10::aten::dim && arity == 1) {
      if (auto* info = info_of(types, through_casts(node->input(0)))) replace(node, (int64_t)info->dims.size());
    } else if (kind == c10::aten::size && arity == 1) {
      if (auto* info = info_of(types, through_casts(node->input(0)))) {
        if (all_static(*info)) {
          replace(node, c10::IValue(info->dims));
        } else {
          // len(x.size()) is the rank even when some dims are dynamic.
          auto uses = node->output()->uses();  // a copy: replacing edits use lists
          for (const auto& use : uses)
            if (use.user->kind() == c10::aten::len && use.user->inputs().size() == 1)
              replace(use.user, (int64_t)info->dims.size());
        }
      }
    } else if (kind == c10::aten::size && arity == 2) {
      auto* info = info_of(types, through_casts(node->input(0)));
      auto dim = torch::jit::constant_as<int64_t>(node->input(1));
      if (info && dim) {
        int64_t rank = (int64_t)info->dims.size();
        int64_t d = *dim < 0 ? *dim + rank : *dim;
        // Only static dims: a dim marked dynamic (-1) takes other sizes at run time.
        if (d >= 0 && d < rank && info->dims[(size_t)d] >= 0) replace(node, info->dims[(size_t)d]);
      }
    }
  }
  return changed;
}

size_t count_blocks(torch::jit::Block* block) {
  size_t n = 0;
  for (auto* node : block->nodes())
    for (auto* b : node->blocks()) n += 1 + count_blocks(b);
  return n;
}

}  // namespace

bool fold_static_shapes(const std::shared_ptr<torch::jit::Graph>& graph,
                        const TypeTable& types) {
  size_t blocks_before = count_blocks(graph->block());
  // Called from the example run's scope: constant propagation must not run placeholder kernels.
  CustomOpKernelsOff no_placeholder_folding;
  auto g = graph;
  // Each sweep's answers let constant propagation resolve more (comparisons, string checks such as
  // MultiheadAttention's `why_not_fast_path`, prim::If on constant conditions), which exposes values
  // the next sweep can answer (an If's output that is now plainly a graph input). A fixpoint.
  // The first round propagates even without a fact of its own: arguments bound to their defaults
  // (None) resolve their branches there.
  for (int round = 0; round < 16; ++round) {
    if (!fold_known_facts(graph, types) && round > 0) break;
    torch::jit::ConstantPropagation(g);
    // Unpacking a list just built (`q, k, v = [x.transpose(1, 0) for x in (q, k, v)]`) gives back
    // the values it was built from, which the next sweep can compare.
    torch::jit::PeepholeOptimizeListIdioms(g);
    // Loops whose trip count is now constant (e.g. building a scales list from the static rank in
    // scripted F.interpolate) are unrolled; their list appends then become plain list constructions.
    if (torch::jit::UnrollConstantLoops(g)) {
      torch::jit::RemoveListMutation(g);
      torch::jit::ConstantPropagation(g);
    }
    // Dict writes pass 3 left inside a loop or branch now gone are in the dict's block.
    if (refold_dict_writes(g)) torch::jit::ConstantPropagation(g);
    torch::jit::EliminateDeadCode(g);
  }
  // Assertions left behind (their condition depends on dynamic dims or data) are dropped, as torch.onnx
  // does; so are answered context queries, which dead code elimination keeps (their schemas are
  // conservative about side effects).
  for (auto it = graph->nodes().begin(); it != graph->nodes().end();) {
    auto* node = *it;
    ++it;
    bool answered = always_false().count(node->kind().toQualString()) && node->outputs().size() == 1 &&
                    !node->output()->hasUses();
    if (is_assertion(node) || answered) node->destroy();
  }
  torch::jit::EliminateDeadCode(graph);
  // Control flow gone: tuples the simple lowering kept (see prepare()) can be lowered now.
  if (count_blocks(graph->block()) == 0 && blocks_before != 0) {
    torch::jit::LowerAllTuples(graph);
    torch::jit::EliminateDeadCode(graph);
  }
  return count_blocks(graph->block()) != blocks_before;
}

}  // namespace t2o::core
