// Functionalizes in-place writes that libtorch's RemoveTensorMutation leaves behind: writes into a
// view (x[a:b, c:d] = v, x[i].fill_(v), x[2:].add_(1)) and writes into a tensor whose views or
// value are read afterwards. Each write becomes a functional computation of the view's new value,
// written back into the viewed tensor with aten::slice_scatter / aten::select_scatter (innermost
// view first); every later read of that tensor, or of a view of it, then reads the new value.
// A write the pass cannot prove it rewrites exactly stays in the graph, and the converter refuses
// it with a clear message (walk.cpp, refuse_lost_writes): never a silently lost write.
#include "load/model_loader.hpp"
#include "prepare/passes.hpp"
#include "common/view_ops.hpp"

#include <torch/csrc/jit/ir/ir.h>

#include <functional>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace t2o::core {
namespace {

using torch::jit::Graph;
using torch::jit::NamedValue;
using torch::jit::Node;
using torch::jit::Value;

std::string kind_of(const Node* n) { return n->kind().toQualString(); }

std::string overload_of(const Node* n) {
  auto schema = n->maybeSchema();
  return schema ? schema->overload_name() : std::string("?");
}

bool is_tensor(const Value* v) { return v->type()->isSubtypeOf(*c10::TensorType::get()); }

// In-place ops that change a tensor's metadata or draw random numbers: no functional rewrite.
const std::unordered_set<std::string>& not_rewritten() {
  static const std::unordered_set<std::string> ops = {
      "aten::squeeze_", "aten::unsqueeze_", "aten::transpose_", "aten::t_", "aten::swapaxes_",
      "aten::swapdims_", "aten::resize_", "aten::resize_as_", "aten::as_strided_", "aten::set_",
      "aten::detach_", "aten::requires_grad_", "aten::share_memory_", "aten::uniform_", "aten::normal_",
      "aten::bernoulli_", "aten::random_", "aten::exponential_", "aten::geometric_", "aten::cauchy_",
      "aten::log_normal_"};
  return ops;
}

// aten::foo_(Tensor(a!) self, ...) -> Tensor(a!): writes its first argument.
bool is_inplace_write(const Node* n) {
  auto schema = n->maybeSchema();
  if (!schema || n->kind().ns() != c10::namespaces::aten || n->outputs().size() != 1) return false;
  const std::string& name = schema->name();
  if (name.empty() || name.back() != '_' || schema->arguments().empty()) return false;
  const auto* alias = schema->arguments()[0].alias_info();
  return alias && alias->isWrite() && !n->inputs().empty() && is_tensor(n->input(0)) && !not_rewritten().count(name);
}

}  // namespace

// Views whose write-back is known: slice, select, narrow (constant start), shape-only views and
// axis swaps. The viewed tensor is input 0. (reshape/flatten/contiguous may copy: not views here.)
bool is_exact_view(const Node* n) {
  if (n->outputs().size() != 1 || n->inputs().empty() || !is_tensor(n->input(0)) || !is_tensor(n->output()))
    return false;
  std::string k = kind_of(n), o = overload_of(n);
  if (k == "aten::slice") return o == "Tensor";
  if (k == "aten::select") return o == "int";
  if (k == "aten::narrow") return o == "" && n->input(2)->node()->kind() == c10::prim::Constant;
  if (k == "aten::view") return o == "";
  if (k == "aten::unsqueeze" || k == "aten::t") return o == "";
  if (k == "aten::squeeze") return o == "" || o == "dim";
  if (k == "aten::transpose") return o == "int";
  if (k == "aten::permute") return o == "" && torch::jit::toIValue(n->input(1)).has_value();
  return false;
}

namespace {

// A tensor whose storage is its own: a graph input, a constant, the output of an op whose schema
// says the output aliases nothing, or of an op returning its input or a copy of it (x.long(),
// contiguous, reshape) when nothing else reads that input (a write then reaches no other reader
// either way).
bool owns_storage(const Value* v) {
  const Node* n = v->node();
  if (n->kind() == c10::prim::Param || n->kind() == c10::prim::Constant) return true;
  auto schema = n->maybeSchema();
  if (!schema || n->kind().ns() != c10::namespaces::aten) return false;
  bool fresh = true;
  for (const auto& r : schema->returns()) fresh = fresh && !r.alias_info();
  if (fresh) return true;
  static const std::unordered_set<std::string> self_or_copy = {
      "aten::to", "aten::type_as", "aten::contiguous", "aten::reshape", "aten::flatten", "aten::detach"};
  return self_or_copy.count(kind_of(n)) && n->outputs().size() == 1 && !n->inputs().empty() &&
         is_tensor(n->input(0)) && n->input(0)->uses().size() == 1 && owns_storage(n->input(0));
}

// Whether a node's outputs may alias its inputs (a view, a container, control flow, ...).
bool may_alias_inputs(const Node* n) {
  auto schema = n->maybeSchema();
  if (!schema) return !n->outputs().empty();
  for (const auto& r : schema->returns())
    if (r.alias_info()) return true;
  return false;
}

Value* insert(Graph& graph, const char* op, std::vector<NamedValue> args) {
  return graph.insert(c10::Symbol::fromQualString(op), args);
}

// A contiguous copy: what the model's later x.view() calls need. (A clone, not contiguous(),
// whose schema says "may alias its input": a later write into it must still see its own storage.)
Value* dense(Graph& graph, Value* v) {
  return graph.insert(c10::aten::clone, {v}, {NamedValue("memory_format", c10::MemoryFormat::Contiguous)});
}

}  // namespace

// The target's value after the write, computed without writing, at the graph's insertion point;
// nullptr when the write has no exact functional form. May throw (no schema matches).
Value* written_value(Node* write) {
  Graph& graph = *write->owningGraph();
  Value* target = write->input(0);
  std::string name = kind_of(write);
  Value* src = name == "aten::copy_" ? write->input(1) : nullptr;
  auto is_number = [](const Value* v) { return v->type()->isSubtypeOf(*c10::NumberType::get()); };
  if (src && is_number(src)) return insert(graph, "aten::fill", {target, src});  // copy_.int / copy_.float
  // Scripted `x[a:b] = 2.0` copies aten::tensor(2.0, prim::dtype(x[a:b]), ...): a fill with the
  // number (another dtype would round the number first: not a fill).
  if (src && kind_of(src->node()) == "aten::tensor" && src->node()->inputs().size() > 1 &&
      is_number(src->node()->input(0))) {
    Node* dtype = src->node()->input(1)->node();
    bool target_dtype = dtype->kind() == c10::prim::dtype && dtype->input(0) == target;
    if (target_dtype || src->node()->input(1)->type()->kind() == c10::TypeKind::NoneType)
      return insert(graph, "aten::fill", {target, src->node()->input(0)});
  }
  if (src)  // src broadcast to the target and cast to its dtype; dense, so later views of it work
    return dense(graph,
                 insert(graph, "aten::expand_as", {insert(graph, "aten::type_as", {write->input(1), target}), target}));
  // The functional twin with the same inputs, bound by schema as mutation removal does (not by
  // Python argument rules: add_(x, y, alpha) would bind alpha positionally to add.Scalar).
  Node* twin = graph.create(c10::Symbol::fromQualString(name.substr(0, name.size() - 1)), write->inputs(), 1);
  twin->output()->setType(write->output()->type());
  auto schema = twin->maybeSchema();
  if (!schema || schema->is_mutable() || may_alias_inputs(twin)) {
    twin->destroy();
    return nullptr;
  }
  graph.insertNode(twin);
  if (name == "aten::fill_" || name == "aten::zero_") return twin->output();  // the target's dtype
  // An in-place op keeps the target's dtype (x.eq_(y) stays float); its functional twin may not.
  return insert(graph, "aten::type_as", {twin->output(), target});
}

// The viewed tensor's new value once the view holds `value`, at the graph's insertion point.
Value* write_back_through(Node* view, Value* value) {
  Graph& graph = *view->owningGraph();
  std::string k = kind_of(view);
  Value* base = view->input(0);
  if (k == "aten::slice")
    return insert(graph, "aten::slice_scatter",
                  {base, value, view->input(1), view->input(2), view->input(3), view->input(4)});
  if (k == "aten::select") return insert(graph, "aten::select_scatter", {base, value, view->input(1), view->input(2)});
  if (k == "aten::narrow") {
    int64_t start = torch::jit::toIValue(view->input(2))->toInt();
    if (start >= 0) {
      Value* end = insert(graph, "aten::add", {view->input(2), view->input(3)});
      return insert(graph, "aten::slice_scatter", {base, value, view->input(1), view->input(2), end, int64_t(1)});
    }
    // A negative start counts from the end: start + length is an end only while it stays
    // negative, and 0 means "to the end" (a slice ending at 0 would be empty).
    auto length = torch::jit::toIValue(view->input(3));
    if (!length || start + length->toInt() > 0) return nullptr;
    int64_t end = start + length->toInt();
    if (end == 0) end = std::numeric_limits<int64_t>::max();
    return insert(graph, "aten::slice_scatter", {base, value, view->input(1), view->input(2), end, int64_t(1)});
  }
  // Write-backs through shape views and axis swaps end in a dense copy: the base's later views
  // (x.view() fails on a transposed tensor) and later writes (into storage of its own) need it.
  if (k == "aten::view" || k == "aten::unsqueeze" || k == "aten::squeeze")
    return dense(graph, insert(graph, "aten::reshape", {value, insert(graph, "aten::size", {base})}));
  if (k == "aten::transpose")
    return dense(graph, insert(graph, "aten::transpose", {value, view->input(1), view->input(2)}));
  if (k == "aten::t") return dense(graph, insert(graph, "aten::t", {value}));
  if (k == "aten::permute") {
    std::vector<int64_t> dims = torch::jit::toIValue(view->input(1))->toIntVector();
    std::vector<int64_t> inverse(dims.size());
    int64_t rank = (int64_t)dims.size();
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = dims[i] < 0 ? dims[i] + rank : dims[i];
      if (d < 0 || d >= rank) return nullptr;
      inverse[d] = i;
    }
    return dense(graph, insert(graph, "aten::permute", {value, inverse}));
  }
  return nullptr;
}

namespace {

class WriteRewriter {
 public:
  WriteRewriter(Graph& graph, Node* write) : graph_(graph), write_(write) {}

  // Rewrites the write and removes it; false (graph untouched but for dead nodes) when it can't.
  bool run() {
    Value* target = write_->input(0);
    std::vector<Node*> chain;  // views from the root down to the target
    Value* root = target;
    while (is_exact_view(root->node())) {
      chain.insert(chain.begin(), root->node());
      root = root->node()->input(0);
    }
    if (!owns_storage(root)) return false;
    // Inside control flow only for a tensor the same block made (a scripted mask built by slice
    // assignments in a branch): a write to an outer tensor, or to a loop-carried one, is seen outside
    // the block and needs threading through it (thread_tensor_mutation.cpp).
    if (write_->owningBlock() != graph_.block() &&
        (root->node()->kind() == c10::prim::Param || root->node()->owningBlock() != write_->owningBlock()))
      return false;
    if (!collect_aliases(root)) return false;
    bool read_later = false;
    for (Value* a : aliases_) read_later |= used_after_write(a);
    read_later |= write_->output()->hasUses();
    if (chain.empty() && !read_later) return false;  // a plain write nobody sees: the converter handles it

    Node* before = write_->prev();
    torch::jit::WithInsertPoint guard(write_);
    try {
      Value* value = written_value(write_);
      if (!value) return false;
      new_value_[target] = value;
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        Node* view = *it;
        Value* written = write_back_through(view, new_value_.at(view->output()));
        if (!written) return false;
        new_value_[view->input(0)] = written;
      }
      std::vector<std::pair<Value*, Value*>> replacements;
      for (Value* a : aliases_)
        if (used_after_write(a)) replacements.emplace_back(a, rematerialized(a));
      for (auto& [old_value, new_value] : replacements) old_value->replaceAllUsesAfterNodeWith(write_, new_value);
      write_->output()->replaceAllUsesWith(new_value_.at(target));
    } catch (const std::exception&) {
      return false;  // no matching schema: leave the write for the converter's refusal
    }
    for (Node* n = before->next(); n != write_; n = n->next()) n->copyMetadata(write_);
    write_->destroy();
    return true;
  }

 private:
  bool used_after_write(const Value* v) const {
    for (const auto& u : v->uses())
      if (u.user != write_ && u.user->isAfter(write_)) return true;
    return false;
  }

  // The root and every view of it taken before the write (the values whose later reads must see
  // it). False when an alias the pass can't rebuild (a container, an unknown view, a block output)
  // is read after the write.
  bool collect_aliases(Value* root) {
    std::vector<Value*> todo{root};
    std::vector<Value*> opaque;
    while (!todo.empty()) {
      Value* v = todo.back();
      todo.pop_back();
      aliases_.push_back(v);
      for (const auto& u : v->uses()) {
        Node* user = u.user;
        if (user == write_ || !user->isBefore(write_)) continue;
        if (user->kind() == c10::prim::Return) {
          if (user->owningBlock() != graph_.block()) return false;  // leaves a nested block
          continue;
        }
        if (u.offset == 0 && is_exact_view(user)) {
          parent_[user->output()] = v;
          todo.push_back(user->output());
        } else if (may_alias_inputs(user)) {
          for (Value* o : user->outputs()) opaque.push_back(o);
        }
      }
    }
    // Anything that may alias the written storage through an op the pass can't rebuild.
    std::unordered_set<Value*> seen;
    while (!opaque.empty()) {
      Value* v = opaque.back();
      opaque.pop_back();
      if (!seen.insert(v).second) continue;
      if (used_after_write(v)) return false;
      for (const auto& u : v->uses()) {
        if (u.user->kind() == c10::prim::Return) return false;
        if (may_alias_inputs(u.user))
          for (Value* o : u.user->outputs()) opaque.push_back(o);
      }
    }
    return true;
  }

  // A view taken before the write, taken again from its base's new value.
  Value* rematerialized(Value* v) {
    auto found = new_value_.find(v);
    if (found != new_value_.end()) return found->second;
    Value* parent = parent_.at(v);
    Value* new_parent = rematerialized(parent);
    Node* clone = graph_.createClone(v->node(), [&](Value* in) { return in == parent ? new_parent : in; });
    graph_.insertNode(clone);
    return new_value_[v] = clone->output();
  }

  Graph& graph_;
  Node* write_;
  std::vector<Value*> aliases_;
  std::unordered_map<Value*, Value*> parent_;     // view -> the tensor it views
  std::unordered_map<Value*, Value*> new_value_;  // value before the write -> after
};

}  // namespace

void functionalize_view_writes(const std::shared_ptr<Graph>& graph) {
  std::vector<Node*> writes;
  std::function<void(torch::jit::Block*)> collect = [&](torch::jit::Block* block) {
    for (Node* n : block->nodes()) {
      if (is_inplace_write(n)) writes.push_back(n);
      for (auto* b : n->blocks()) collect(b);
    }
  };
  collect(graph->block());
  // In graph order: a later write into the same tensor then starts from the earlier one's result.
  for (Node* w : writes) WriteRewriter(*graph, w).run();
}

}  // namespace t2o::core
