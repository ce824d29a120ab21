#include "prepare/passes.hpp"

#include "common/locations.hpp"
#include "signature/signature.hpp"

#include <torch/csrc/jit/passes/autocast.h>
#include <torch/csrc/jit/passes/constant_pooling.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/freeze_module.h>
#include <torch/csrc/jit/passes/frozen_graph_optimizations.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/lower_tuples.h>
#include <torch/csrc/jit/passes/peephole.h>
#include <torch/csrc/jit/passes/remove_mutation.h>
#include <torch/csrc/jit/runtime/custom_operator.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <unordered_map>
#include <unordered_set>

namespace t2o::core {

namespace {

// torch.onnx's RemovePrintOps: print() and warnings.warn() (prim::Print, aten::warn) have no ONNX
// counterpart and no result a model uses; they go before anything runs (scripted GoogLeNet and
// Inception v3 warn in forward()). What only fed them is left to dead-code elimination.
void remove_print_ops(torch::jit::Block* block) {
  static const auto warn = c10::Symbol::fromQualString("aten::warn");
  for (auto it = block->nodes().begin(); it != block->nodes().end();) {
    auto* n = *it;
    ++it;
    for (auto* b : n->blocks()) remove_print_ops(b);
    if ((n->kind() == c10::prim::Print || n->kind() == warn) && n->outputs().empty()) n->destroy();
  }
}

// A traced Python number (int_tensor + 1.5) is recorded as a 0-d tensor constant that was a
// "wrapped number" (it does not raise the tensor's dtype within its category); the archive keeps
// no such flag, so libtorch's interpreter would compute float64. PyTorch's own graph executor
// turns these constants back into numbers for add/sub/mul/div (the ops whose Python bindings wrap
// numbers), which is what running the loaded model in PyTorch gives: do the same, nested blocks
// included, so the example run and the packs see a Python number. Runs on every method before
// freezing.
void unwrap_number_constants(torch::jit::Block* block) {
  static const char* const schemas[] = {
      "aten::add(Tensor self, Tensor other, *, Scalar alpha) -> Tensor",
      "aten::sub(Tensor self, Tensor other, *, Scalar alpha) -> Tensor",
      "aten::mul(Tensor self, Tensor other) -> Tensor",
      "aten::div(Tensor self, Tensor other) -> Tensor",
  };
  for (auto it = block->nodes().begin(); it != block->nodes().end(); ++it) {
    torch::jit::Node* node = *it;
    for (auto* b : node->blocks()) unwrap_number_constants(b);
    bool matches = false;
    for (const char* schema : schemas) matches = matches || node->matches(schema);
    if (!matches) continue;
    auto other = node->get<at::Tensor>(c10::Symbol::attr("other"));
    if (!other || other->dim() != 0 || !other->device().is_cpu()) continue;
    auto* graph = node->owningGraph();
    torch::jit::WithInsertPoint here(node);
    std::vector<torch::jit::Value*> inputs = node->inputs().vec();
    inputs[1] = graph->insertConstant(other->item());
    auto* replacement = graph->insertNode(graph->create(node->kind(), inputs));
    replacement->copyMetadata(node);
    replacement->output()->copyMetadata(node->output());
    node->output()->replaceAllUsesWith(replacement->output());
  }
}


// The attribute a chain of prim::GetAttr from forward()'s `self` reads (self.emb.weight), or
// nullopt when `value` is not such a read.
std::optional<std::pair<c10::intrusive_ptr<c10::ivalue::Object>, std::string>> attribute_read(
    torch::jit::Value* value, const torch::jit::Module& module) {
  torch::jit::Node* node = value->node();
  if (node->kind() != c10::prim::GetAttr) return std::nullopt;
  torch::jit::Value* owner = node->input(0);
  c10::intrusive_ptr<c10::ivalue::Object> object;
  if (owner == owner->owningGraph()->inputs().at(0)) {
    object = module._ivalue();
  } else {
    auto outer = attribute_read(owner, module);
    if (!outer) return std::nullopt;
    c10::IValue held = outer->first->getAttr(outer->second);
    if (!held.isObject()) return std::nullopt;
    object = held.toObject();
  }
  return std::make_pair(object, node->s(c10::attr::name));
}

// nn.Embedding(max_norm=...) renormalizes the looked-up rows of its weight in place
// (aten::embedding_renorm_ on weight.detach()), so freezing leaves that weight a module attribute.
// Read it as a constant and make the renorm functional (aten::embedding_renorm): the reads after
// it see the renormed weight. Renorming is idempotent, so every call of the exported model gives
// what PyTorch gives. Top-level nodes only.
void functionalize_embedding_renorm(const std::shared_ptr<torch::jit::Graph>& graph,
                                    const torch::jit::Module& module) {
  static const auto renorm_ = c10::Symbol::fromQualString("aten::embedding_renorm_");
  static const auto renorm = c10::Symbol::fromQualString("aten::embedding_renorm");
  std::vector<torch::jit::Node*> renorms;
  for (auto* n : graph->nodes())
    if (n->kind() == renorm_) renorms.push_back(n);
  for (auto* n : renorms) {
    torch::jit::Value* root = n->input(0);
    while (root->node()->kind() == c10::aten::detach || root->node()->kind() == c10::aten::alias)
      root = root->node()->input(0);
    auto attr = attribute_read(root, module);
    if (!attr) continue;
    // Every read of that attribute becomes one constant at the top of the graph.
    torch::jit::Value* weight = nullptr;
    {
      torch::jit::WithInsertPoint top(*graph->nodes().begin());
      // (detached: a constant tensor may not require grad)
      weight = graph->insertConstant(attr->first->getAttr(attr->second).toTensor().detach());
    }
    std::vector<torch::jit::Node*> reads;
    for (auto* m : graph->nodes()) {
      if (m->kind() != c10::prim::GetAttr) continue;
      auto other = attribute_read(m->output(), module);
      if (other && other->first.get() == attr->first.get() && other->second == attr->second) reads.push_back(m);
    }
    for (auto* m : reads) m->output()->replaceAllUsesWith(weight);
    // Which values alias the weight: the constant and the detach/alias chain the renorm wrote to.
    std::unordered_set<torch::jit::Value*> aliases{weight};
    for (torch::jit::Value* v = n->input(0); v != weight; v = v->node()->input(0)) aliases.insert(v);
    torch::jit::WithInsertPoint after(n->next());
    auto* functional = graph->insertNode(graph->create(renorm, n->inputs(), 1));
    functional->copyMetadata(n);
    functional->output()->setType(n->output()->type());
    n->output()->replaceAllUsesWith(functional->output());
    for (auto* v : aliases) {
      auto uses = v->uses();
      for (const auto& use : uses)
        if (use.user != functional && functional->isBefore(use.user))
          use.user->replaceInput(use.offset, functional->output());
    }
    n->destroy();
  }
}

// prim::unchecked_cast of a value that already has the cast's type: an Optional argument bound to a
// tuple (hx given to a scripted nn.LSTM) is a tuple construct now, which tuple lowering must see.
// Also folds the prim::isinstance checks the static types answer (static_isinstance above).
// prim::isinstance answered by its input's static type: true when that type is a subtype of a
// candidate, false when it is a concrete type (no Union, Optional, Any, class) that is none. After
// inlining, a Union-typed parameter's value has its caller's type: PyTorch 2.x's scripted
// pad_sequence(sequences: Union[Tensor, List[Tensor]]) asks isinstance(sequences, Tensor) of a list.
std::optional<bool> static_isinstance(torch::jit::Node* node) {
  const c10::TypePtr& t = node->input()->type();
  for (const auto& candidate : node->tys(c10::Symbol::attr("types")))
    if (t->isSubtypeOf(*candidate)) return true;
  switch (t->kind()) {
    case c10::TypeKind::TensorType:
    case c10::TypeKind::ListType:
    case c10::TypeKind::TupleType:
    case c10::TypeKind::DictType:
    case c10::TypeKind::IntType:
    case c10::TypeKind::FloatType:
    case c10::TypeKind::BoolType:
    case c10::TypeKind::StringType:
    case c10::TypeKind::NoneType:
      return false;
    default:
      return std::nullopt;
  }
}

void drop_satisfied_casts(torch::jit::Block* block) {
  for (auto it = block->nodes().begin(); it != block->nodes().end();) {
    torch::jit::Node* node = *it;
    ++it;
    for (auto* b : node->blocks()) drop_satisfied_casts(b);
    if (node->kind() == c10::prim::isinstance) {
      if (auto answer = static_isinstance(node)) {
        torch::jit::WithInsertPoint guard(node);
        node->output()->replaceAllUsesWith(node->owningGraph()->insertConstant(*answer));
        node->destroy();
      }
      continue;
    }
    if (node->kind() != c10::prim::unchecked_cast) continue;
    if (!node->input()->type()->isSubtypeOf(*node->output()->type())) continue;
    node->output()->replaceAllUsesWith(node->input());
    node->destroy();
  }
}

// A default value as TorchScript source, or nothing when it has no literal form.
std::optional<std::string> default_literal(const c10::IValue& v) {
  if (v.isNone()) return "None";
  if (v.isBool()) return v.toBool() ? "True" : "False";
  if (v.isInt()) return std::to_string(v.toInt());
  if (v.isDouble()) {
    std::ostringstream s;
    s.precision(17);
    s << v.toDouble();
    std::string text = s.str();
    if (text.find_first_of(".eni") == std::string::npos) text += ".0";
    return text;
  }
  return std::nullopt;
}

// A scripted module whose forward is overloaded (a scripted top-level nn.LSTM/GRU/RNN: forward__0
// takes a Tensor, forward__1 a PackedSequence) has no `forward`. The first overload whose arguments
// are all values an export can bind (no class instances) becomes forward, by a one-line wrapper.
void define_forward_from_overload(torch::jit::Module& module, const std::string& path) {
  std::vector<torch::jit::Method> overloads;
  for (const auto& m : module.get_methods()) {
    const std::string& name = m.name();
    if (name.rfind("forward__", 0) == 0 && name.size() > 9 &&
        std::all_of(name.begin() + 9, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      overloads.push_back(m);
  }
  if (overloads.empty()) throw ExportError(path + ": the module has no forward() method");
  std::string seen;
  for (const auto& m : overloads) {
    const auto& args = m.function().getSchema().arguments();
    bool bindable = true;
    for (size_t i = 1; i < args.size(); ++i) {
      c10::TypePtr type = args[i].type();
      if (auto opt = type->cast<c10::OptionalType>()) type = opt->getElementType();
      bindable &= type->kind() != c10::TypeKind::ClassType;
    }
    seen += (seen.empty() ? "" : ", ") + m.function().getSchema().name() + "(";
    for (size_t i = 1; i < args.size(); ++i) seen += (i > 1 ? ", " : "") + args[i].type()->annotation_str();
    seen += ")";
    if (!bindable) continue;
    std::string params = "self", call;
    for (size_t i = 1; i < args.size(); ++i) {
      params += ", " + args[i].name() + ": " + args[i].type()->annotation_str();
      if (args[i].default_value())
        if (auto literal = default_literal(*args[i].default_value())) params += " = " + *literal;
      call += (i > 1 ? ", " : "") + args[i].name();
    }
    try {
      module.define("def forward(" + params + "):\n    return self." + m.name() + "(" + call + ")\n");
    } catch (const std::exception& e) {
      throw ExportError(path + ": forward is overloaded and calling " + m.name() + " failed: " + error_reason(e.what()),
                        e.what());
    }
    return;
  }
  throw ExportError(path + ": the module has no forward() method, and its overloads " + seen +
                    " take class instances an export cannot give");
}

// torch::jit::Inline, with libtorch's per-callee clean-up done once. libtorch inlines each callee's
// optimized_graph(), which first runs peephole, constant propagation and constant pooling on it
// alone (each with its own alias analysis: a fifth of resnet50's export, one pass set per
// submodule). Here each callee's own graph is copied and inlined bottom-up, once per function, and
// the same passes then run once on the whole graph, where they see at least as much. The callees
// are never changed (free functions are the caller's compilation unit's), and the inlined nodes carry
// the same call stacks as libtorch's (local functions and source locations read them).
namespace {

using InlinedGraphs = std::unordered_map<const torch::jit::GraphFunction*, std::shared_ptr<torch::jit::Graph>>;

void inline_calls(torch::jit::Block* block, InlinedGraphs& inlined);

torch::jit::Graph* inlined_graph_of(torch::jit::GraphFunction* fn, InlinedGraphs& inlined) {
  auto it = inlined.find(fn);
  if (it != inlined.end()) return it->second.get();
  auto graph = fn->graph()->copy();
  inline_calls(graph->block(), inlined);
  return (inlined[fn] = std::move(graph)).get();
}

void inline_calls(torch::jit::Block* block, InlinedGraphs& inlined) {
  for (auto it = block->nodes().begin(); it != block->nodes().end();) {
    torch::jit::Node* cur = *it;
    ++it;  // the callee's nodes go in before cur
    for (auto* b : cur->blocks()) inline_calls(b, inlined);
    torch::jit::GraphFunction* callee = nullptr;
    torch::jit::Node* function_constant = nullptr;
    if (cur->kind() == c10::prim::CallMethod) {
      if (auto cls = cur->input(0)->type()->cast<c10::ClassType>())
        if (auto* method = cls->findMethod(cur->s(c10::attr::name))) callee = torch::jit::tryToGraphFunction(*method);
    } else if (cur->kind() == c10::prim::CallFunction && cur->input(0)->node()->kind() == c10::prim::Constant) {
      function_constant = cur->input(0)->node();
      callee = torch::jit::tryToGraphFunction(*function_constant->output()->type()->expectRef<c10::FunctionType>().function());
    }
    if (!callee) continue;
    torch::jit::Graph* body = inlined_graph_of(callee, inlined);
    if (function_constant) cur->removeInput(0);
    torch::jit::inlineCallTo(cur, callee, body);
    if (function_constant && !function_constant->hasUses()) function_constant->destroy();
  }
}

}  // namespace

void inline_calls(const std::shared_ptr<torch::jit::Graph>& graph) {
  InlinedGraphs inlined;
  inline_calls(graph->block(), inlined);
  // What preoptimizeGraph does to each callee (torch/csrc/jit/api/function_impl.cpp), once.
  std::shared_ptr<torch::jit::Graph> g = graph;
  torch::jit::PeepholeOptimize(g, /*disable_shape_peepholes=*/true);
  torch::jit::ConstantPropagationImmutableTypes(g);
  if (torch::jit::autocastEnabled()) torch::jit::Autocast(g);
  torch::jit::ConstantPooling(g);
}

// torch::jit::freeze without its eval-mode check: its two steps, which freeze a module in training
// mode as well (torch.onnx freezes training-mode modules the same way, with _freeze_module). Not in
// place (freeze_module_inplace): freezing deletes the methods forward() called, and the inlined
// nodes' call stacks still point at them, which the example run's interpreter reads (a crash in
// a scripted MobileNetV3); the clone's methods go, the module's own stay.
torch::jit::Module freeze_in_any_mode(const torch::jit::Module& module) {
  torch::jit::Module frozen = torch::jit::freeze_module(module);
  auto graph = frozen.get_method("forward").graph();
  // optimize_numerics=false: keep the model's own arithmetic (no conv/bn folding behind the user's back).
  torch::jit::OptimizeFrozenGraph(graph, /*optimize_numerics=*/false);
  return frozen;
}

}  // namespace

PreparedModel prepare(torch::jit::Module module, const std::string& path, const std::vector<InputSpec>& inputs,
                      TrainingMode training) {
  PreparedModel out;
  if (!module.find_method("forward")) define_forward_from_overload(module, path);
  try {
    // As torch.onnx's select_model_mode_for_export: preserve leaves each module's flag as saved.
    if (training == TrainingMode::Eval) module.eval();
    else if (training == TrainingMode::Train) module.train(true);
    const bool root_training = module.hasattr("training") && module.is_training();
    // Before freezing: its constant propagation would fold them as tensors.
    for (const auto& submodule : module.modules())
      for (const auto& method : submodule.get_methods()) unwrap_number_constants(method.graph()->block());
    unfuse_fake_quantizers(module);
    // Calls inlined here, not by freezing: freezing inlines forward then deletes the methods it
    // called (forward -> self._impl), and the inlined nodes' call stacks still point at them, which
    // libtorch's interpreter reads (a crash in the example run of a scripted MobileNetV3).
    for (const auto& method : module.get_methods()) inline_calls(method.graph());
    out.dropped_state_updates = drop_running_stat_updates(module.get_method("forward").graph());
    out.state_in_call = thread_module_state(module.get_method("forward").graph(), module);
    constant_instance_norm_stats(module, module.get_method("forward").graph());
    // libtorch freezes nothing of a module whose own flag is true (its submodules' flags do not
    // matter): forward()'s reads of that flag become the constant true, then the flag is cleared.
    if (root_training) {
      auto forward = module.get_method("forward").graph();
      std::function<void(torch::jit::Block*)> fix = [&](torch::jit::Block* block) {
        for (auto* n : block->nodes()) {
          for (auto* b : n->blocks()) fix(b);
          if (n->kind() == c10::prim::GetAttr && n->input(0) == forward->inputs()[0] && n->s(c10::attr::name) == "training") {
            torch::jit::WithInsertPoint here(n);
            n->output()->replaceAllUsesWith(forward->insertConstant(true));
          }
        }
      };
      fix(forward->block());
      module.setattr("training", false);
    }
    out.module = freeze_in_any_mode(module);
    // Freezing keeps attributes it cannot prove unwritten: an in-place op on a fresh tensor (a traced
    // pack_padded_sequence(enforce_sorted=False) scatters into empty_like) leaves an LSTM's weights
    // as attributes. With calls inlined and such ops made functional, the attributes forward()
    // does not write freeze (those it writes stay, and are refused below).
    if (out.module.get_method("forward").graph()->inputs()[0]->hasUses()) {
      for (const auto& submodule : module.modules())
        for (const auto& method : submodule.get_methods()) {
          inline_calls(method.graph());  // calls make every argument escape: no rewrite
          torch::jit::RemoveTensorMutation(method.graph());
        }
      out.module = freeze_in_any_mode(module);
    }
    if (out.module.get_method("forward").graph()->inputs()[0]->hasUses()) fold_unwritten_tensor_attributes(out.module);
  } catch (const std::exception& e) {
    throw ExportError(path + ": freezing the module failed: " + error_reason(e.what()), e.what());
  }
  auto method = out.module.get_method("forward");
  const auto& schema = method.function().getSchema();
  for (size_t i = 1; i < schema.arguments().size(); ++i) {
    out.argument_names.push_back(schema.arguments()[i].name());
    out.argument_types.push_back(schema.arguments()[i].type());
    out.argument_defaults.push_back(schema.arguments()[i].default_value());
  }
  auto graph = method.graph()->copy();
  try {
    torch::jit::Inline(*graph);
    remove_print_ops(graph->block());
    auto dicts = bind_signature(out, *graph, inputs);
    drop_satisfied_casts(graph->block());
    if (!inputs.empty()) torch::jit::LowerSimpleTuples(graph);  // tuples of bound arguments read at once
    functionalize_embedding_renorm(graph, out.module);
    torch::jit::RemoveListMutation(graph);
    // Before libtorch's pass, which turns a write inside a branch into a functional op whose result
    // nothing reads (the if is then dropped as dead code).
    thread_tensor_mutation(graph);
    torch::jit::RemoveTensorMutation(graph);
    fold_dict_arguments(dicts, *graph, /*after_propagation=*/false);
    // Full constant propagation: also resolves `if x is None` branches on arguments frozen to None.
    torch::jit::ConstantPropagation(graph);
    fold_dict_arguments(dicts, *graph, /*after_propagation=*/true);
    // The reads it answers (`"aux" in out`) may decide branches.
    if (fold_dict_writes(graph)) torch::jit::ConstantPropagation(graph);
    functionalize_view_writes(graph);
    remove_assertions(graph);
    // LowerAllTuples corrupts some graphs that still hold control flow (scripted MultiheadAttention
    // crashes libtorch's interpreter afterwards); those get the simple form. Tuples inside dicts
    // (HF-style outputs) can't be lowered by LowerAllTuples either; the host keeps tuples as value
    // lists, so the simple form loses nothing.
    bool keep_some_tuples = false;
    for (auto* n : graph->nodes()) {
      keep_some_tuples |= !n->blocks().empty();
      if (n->kind() == c10::prim::DictConstruct)
        for (auto* in : n->inputs()) keep_some_tuples |= in->type()->kind() == c10::TypeKind::TupleType;
    }
    if (keep_some_tuples) torch::jit::LowerSimpleTuples(graph);
    else torch::jit::LowerAllTuples(graph);
    lower_packed_sequences(graph);
    thread_list_mutation(graph);
    unpack_quantized_params(graph);
    torch::jit::EliminateDeadCode(graph);
  } catch (const ExportError&) {
    throw;
  } catch (const std::exception& e) {
    throw ExportError(path + ": preparing the graph failed: " + error_reason(e.what()), e.what());
  }
  // After freezing, self is unused: drop it so graph inputs are forward()'s arguments.
  if (!graph->inputs().empty() && graph->inputs()[0]->type()->cast<c10::ClassType>()) {
    if (graph->inputs()[0]->hasUses())
      throw ExportError(path + ": " + module_state_error(out.module));
    graph->eraseInput(0);
  }
  out.graph = graph;
  return out;
}

// ---- pass 11: raising branches ----

namespace {

torch::jit::Node* raise_in(torch::jit::Block* block) {
  for (auto* n : block->nodes())
    if (n->kind() == c10::prim::RaiseException) return n;
  return nullptr;
}

void drop_raising_branches(torch::jit::Block* block, const std::function<void(const std::string&)>& warn) {
  for (auto it = block->nodes().begin(); it != block->nodes().end();) {
    auto* node = *it;
    ++it;
    for (auto* b : node->blocks()) drop_raising_branches(b, warn);
    if (node->kind() != c10::prim::If) continue;
    auto* raise_then = raise_in(node->blocks()[0]);
    auto* raise_else = raise_in(node->blocks()[1]);
    if (!raise_then == !raise_else) continue;  // neither raises, or both do
    auto* raising = raise_then ? raise_then : raise_else;
    auto* kept = node->blocks()[raise_then ? 1 : 0];
    if (warn)
      warn("prim::RaiseException at " + location_of(raising) +
           ": ONNX has no exceptions; the branch that raises is dropped and the other always runs");
    for (auto kept_it = kept->nodes().begin(); kept_it != kept->nodes().end();) {
      auto* n = *kept_it;
      ++kept_it;
      n->moveBefore(node);
    }
    for (size_t k = 0; k < node->outputs().size(); ++k) node->output(k)->replaceAllUsesWith(kept->outputs()[k]);
    node->destroy();
  }
}

}  // namespace

void drop_raising_branches(const std::shared_ptr<torch::jit::Graph>& graph,
                           const std::function<void(const std::string&)>& warn) {
  drop_raising_branches(graph->block(), warn);
  torch::jit::EliminateDeadCode(graph);
}

// ---- pass 7: lists mutated inside blocks, or by pop / del l[i] anywhere ----

namespace {

// Functional twins of TorchScript's in-place list ops: each returns the new list. The pass below
// uses them where a list is mutated inside an if or loop, so the list becomes a value the blocks
// return (ONNX sequences are values too). Pure, so constant propagation may fold them.
torch::jit::RegisterOperators list_ops({
    torch::jit::Operator(
        "t2o::list_append(t[] self, t el) -> t[]",
        [](torch::jit::Stack& stack) {
          c10::IValue el = torch::jit::pop(stack);
          auto list = torch::jit::pop(stack).toList().copy();
          list.push_back(std::move(el));
          stack.emplace_back(std::move(list));
        },
        c10::AliasAnalysisKind::FROM_SCHEMA),
    torch::jit::Operator(
        "t2o::list_insert(t[] self, int idx, t el) -> t[]",
        [](torch::jit::Stack& stack) {
          c10::IValue el = torch::jit::pop(stack);
          int64_t idx = torch::jit::pop(stack).toInt();
          auto list = torch::jit::pop(stack).toList().copy();
          int64_t n = (int64_t)list.size();
          // Python's insert clamps the position into [0, len].
          if (idx < 0) idx = std::max<int64_t>(0, idx + n);
          idx = std::min(idx, n);
          list.insert(list.begin() + idx, std::move(el));
          stack.emplace_back(std::move(list));
        },
        c10::AliasAnalysisKind::FROM_SCHEMA),
    torch::jit::Operator(
        "t2o::list_pop(t[] self, int idx) -> (t[], t)",
        [](torch::jit::Stack& stack) {
          int64_t idx = torch::jit::pop(stack).toInt();
          auto list = torch::jit::pop(stack).toList().copy();
          int64_t n = (int64_t)list.size();
          TORCH_CHECK(n > 0, "pop from empty list");
          int64_t i = idx < 0 ? idx + n : idx;
          TORCH_CHECK(i >= 0 && i < n, "pop index out of range");
          c10::IValue el = list.get((size_t)i);
          list.erase(list.begin() + i);
          stack.emplace_back(std::move(list));
          stack.emplace_back(std::move(el));
        },
        c10::AliasAnalysisKind::FROM_SCHEMA),
    torch::jit::Operator(
        "t2o::list_set(t[] self, int idx, t el) -> t[]",
        [](torch::jit::Stack& stack) {
          c10::IValue el = torch::jit::pop(stack);
          int64_t idx = torch::jit::pop(stack).toInt();
          auto list = torch::jit::pop(stack).toList().copy();
          int64_t n = (int64_t)list.size();
          int64_t i = idx < 0 ? idx + n : idx;
          TORCH_CHECK(i >= 0 && i < n, "list assignment index out of range");
          list.set((size_t)i, std::move(el));
          stack.emplace_back(std::move(list));
        },
        c10::AliasAnalysisKind::FROM_SCHEMA),
});

bool is_list_mutation(const torch::jit::Node* n) {
  static const std::unordered_set<std::string> ops = {"aten::append", "aten::insert", "aten::pop", "aten::_set_item",
                                                      "aten::Delete"};
  return !n->inputs().empty() && n->input(0)->type()->kind() == c10::TypeKind::ListType &&
         ops.count(n->kind().toQualString());
}

bool mutates(torch::jit::Block* block, torch::jit::Value* list) {
  for (auto* n : block->nodes()) {
    if (is_list_mutation(n) && n->input(0) == list) return true;
    for (auto* b : n->blocks())
      if (mutates(b, list)) return true;
  }
  return false;
}

void replace_reads(torch::jit::Block* block, torch::jit::Value* list, torch::jit::Value* current) {
  for (auto* n : block->nodes()) {
    n->replaceInputWith(list, current);
    for (auto* b : n->blocks()) replace_reads(b, list, current);
  }
  block->return_node()->replaceInputWith(list, current);
}

// Rewrites the mutations of `list` in `block` (after `after`, if given) into functional ops and
// threads the newest value through ifs (as an extra output) and loops (as a carried value).
// Returns the list's value at the end of the block.
torch::jit::Value* thread(torch::jit::Block* block, torch::jit::Node* after, torch::jit::Value* list,
                          torch::jit::Value* current) {
  auto* graph = block->owningGraph();
  std::vector<torch::jit::Node*> nodes;
  for (auto* n = after ? after->next() : block->param_node()->next(); n != block->return_node(); n = n->next())
    nodes.push_back(n);
  const auto list_type = list->type();
  for (auto* n : nodes) {
    bool inner = false;
    for (auto* b : n->blocks()) inner |= mutates(b, list);
    if (inner && n->kind() == c10::prim::If) {
      for (auto* b : n->blocks()) b->registerOutput(thread(b, nullptr, list, current));
      current = n->addOutput()->setType(list_type);
      continue;
    }
    if (inner && n->kind() == c10::prim::Loop) {
      auto* body = n->blocks()[0];
      n->addInput(current);
      auto* param = body->addInput()->setType(list_type);
      body->registerOutput(thread(body, nullptr, list, param));
      current = n->addOutput()->setType(list_type);
      continue;
    }
    if (is_list_mutation(n) && n->input(0) == list) {
      torch::jit::WithInsertPoint guard(n);
      std::string kind = n->kind().toQualString();
      torch::jit::Node* functional = nullptr;
      if (kind == "aten::append") {
        functional = graph->create(c10::Symbol::fromQualString("t2o::list_append"), {current, n->input(1)}, 1);
      } else if (kind == "aten::insert") {
        functional =
            graph->create(c10::Symbol::fromQualString("t2o::list_insert"), {current, n->input(1), n->input(2)}, 1);
      } else if (kind == "aten::_set_item") {
        functional =
            graph->create(c10::Symbol::fromQualString("t2o::list_set"), {current, n->input(1), n->input(2)}, 1);
      } else {  // aten::pop; aten::Delete (del l[i]) is a pop whose element is dropped
        auto* idx = n->inputs().size() > 1 ? n->input(1) : graph->insertConstant((int64_t)-1);
        functional = graph->create(c10::Symbol::fromQualString("t2o::list_pop"), {current, idx}, 2);
      }
      graph->insertNode(functional);
      functional->output(0)->setType(list_type);
      if (kind == "aten::Delete") {
        functional->output(1)->setType(list_type->expectRef<c10::ListType>().getElementType());
      } else if (kind == "aten::pop") {
        functional->output(1)->setType(n->output()->type());
        n->output()->replaceAllUsesWith(functional->output(1));
      } else if (!n->outputs().empty()) {
        n->output()->replaceAllUsesWith(functional->output(0));
      }
      current = functional->output(0);
      n->destroy();
      continue;
    }
    n->replaceInputWith(list, current);
    for (auto* b : n->blocks()) replace_reads(b, list, current);
  }
  block->return_node()->replaceInputWith(list, current);
  return current;
}

void collect_lists(torch::jit::Block* block, std::vector<torch::jit::Value*>& lists) {
  for (auto* n : block->nodes()) {
    for (auto* out : n->outputs()) {
      if (out->type()->kind() != c10::TypeKind::ListType) continue;
      // Mutated inside a nested block, or by an op RemoveListMutation leaves (pop, del l[i]).
      bool mutated = false;
      for (const auto& use : out->uses())
        mutated |= is_list_mutation(use.user) && use.offset == 0;
      if (mutated) lists.push_back(out);
    }
    for (auto* b : n->blocks()) collect_lists(b, lists);
  }
}

}  // namespace

void thread_list_mutation(const std::shared_ptr<torch::jit::Graph>& graph) {
  std::vector<torch::jit::Value*> lists;
  collect_lists(graph->block(), lists);
  for (auto* list : lists) thread(list->node()->owningBlock(), list->node(), list, list);
}

void after_example_runs(const std::shared_ptr<torch::jit::Graph>& graph, TypeTable& types, bool fold_constants,
                        bool rms_norm, const std::function<void(const std::string&)>& warn) {
  drop_raising_branches(graph, warn);
  if (fold_constants) fold_batch_norm(graph, types);
  if (rms_norm) fuse_rms_norm(graph, types);
}

}  // namespace t2o::core
