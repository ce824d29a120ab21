// Part of pass 3 (passes.hpp): in-place writes into a tensor from inside if/loop blocks. libtorch's
// RemoveTensorMutation leaves a write such as `y.index_add_(...)` inside a loop body when y was made
// outside it, and converting the node alone loses the write (the symbolic returns a new tensor;
// later reads of y see the old one); a write `y[idx] = v` inside a branch it even makes a functional
// op nothing reads, and the branch disappears. Runs before it. Each such write becomes its
// functional op and the newest value of the tensor is threaded through the blocks: an extra output
// of each if, a carried value of each loop, as thread_list_mutation does for lists (and as
// torch.onnx's remove_inplace_ops_for_onnx does).
//
// Writes through exact views of the tensor (x[i] = v, x[a:b] += v, x[i].copy_(v), x[1:][idx] = v:
// slice/select/narrow/shape views, common/view_ops.hpp) become the view's new value written back
// into the tensor (select_scatter, slice_scatter, ...). To make that exact, every read of a view
// takes the view again right before it (from the tensor's value at that point), so a view taken
// before a write and read after it sees the write, as in PyTorch.
//
// Tensors are left alone (to the core's lost-write refusal) when an alias of them could see a
// write without being rewritten: a view that is not exact (expand, unbind, as_strided, ...), a view
// leaving its block, the tensor carried by a loop or returned by a block while it is written
// afterwards. (A loop body's carried input that the body returns in its own slot is threaded: the
// body returns its newest value.)
#include "prepare/passes.hpp"
#include "common/view_ops.hpp"

#include <functional>
#include <string>
#include <unordered_set>

namespace t2o::core {

namespace {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

// An aten in-place op (name ending in '_') that writes its first argument and returns it.
bool writes_first_input(const Node* n) {
  if (!n->kind().is_aten() || n->inputs().empty() || n->outputs().size() != 1) return false;
  const std::string name = n->kind().toUnqualString();
  if (name.size() < 2 || name.back() != '_') return false;
  auto schema = n->maybeSchema();
  if (!schema || schema->arguments().empty()) return false;
  const auto* alias = schema->arguments()[0].alias_info();
  return alias && alias->isWrite();
}

// Whether written_value() gives write n an exact functional form (creates nothing that stays).
bool has_functional_form(Node* n) {
  std::string name = n->kind().toQualString();
  if (name == "aten::copy_") return true;
  name.pop_back();
  Node* f = n->owningGraph()->create(c10::Symbol::fromQualString(name), n->inputs(), 1);
  auto schema = f->maybeSchema();
  bool ok = schema && !schema->is_mutable();
  if (ok)
    for (const auto& r : schema->returns()) ok = ok && !r.alias_info();
  f->destroy();
  return ok;
}

// Whether write_back_through() knows how to write through exact view n (inplace_views.cpp).
bool write_back_known(const Node* n) {
  std::string k = n->kind().toQualString();
  if (k == "aten::narrow") {
    int64_t start = torch::jit::toIValue(n->input(2))->toInt();
    if (start >= 0) return true;
    auto length = torch::jit::toIValue(n->input(3));
    return length && start + length->toInt() <= 0;
  }
  return true;
}

// The tensor write n lands in: its target, or the tensor the target's exact views start from (the
// views, outermost first, in *chain).
Value* written_root(const Node* n, std::vector<Node*>* chain = nullptr) {
  Value* v = n->input(0);
  while (is_exact_view(v->node())) {
    if (chain) chain->insert(chain->begin(), v->node());
    v = v->node()->input(0);
  }
  return v;
}

bool is_write_of(const Node* n, const Value* t) { return writes_first_input(n) && written_root(n) == t; }

bool writes_in(Block* block, const Value* t) {
  for (auto* n : block->nodes()) {
    if (is_write_of(n, t)) return true;
    for (auto* b : n->blocks())
      if (writes_in(b, t)) return true;
  }
  return false;
}

void replace_reads(Block* block, Value* t, Value* current) {
  for (auto* n : block->nodes()) {
    n->replaceInputWith(t, current);
    for (auto* b : n->blocks()) replace_reads(b, t, current);
  }
  block->return_node()->replaceInputWith(t, current);
}

// Rewrites the writes of t in `block` (after `after`, if given) into functional ops, threading the
// newest value through ifs and loops. Returns t's value at the end of the block. Every view of t
// read or written here was taken right before its use (prepare() below), so it reads `current`.
Value* thread(Block* block, Node* after, Value* t, Value* current) {
  std::vector<Node*> nodes;
  for (auto* n = after ? after->next() : block->param_node()->next(); n != block->return_node(); n = n->next())
    nodes.push_back(n);
  const auto type = t->type();
  for (auto* n : nodes) {
    bool inner = false;
    for (auto* b : n->blocks()) inner |= writes_in(b, t);
    if (inner && n->kind() == c10::prim::If) {
      for (auto* b : n->blocks()) b->registerOutput(thread(b, nullptr, t, current));
      current = n->addOutput()->setType(type);
      continue;
    }
    if (inner && n->kind() == c10::prim::Loop) {
      auto* body = n->blocks()[0];
      n->addInput(current);
      auto* param = body->addInput()->setType(type);
      body->registerOutput(thread(body, nullptr, t, param));
      current = n->addOutput()->setType(type);
      continue;
    }
    if (writes_first_input(n)) {
      std::vector<Node*> chain;
      Value* root = written_root(n, &chain);
      if (root == t || root == current) {
        n->replaceInputWith(t, current);
        torch::jit::WithInsertPoint here(n);
        Node* before = n->prev();
        Value* value = written_value(n);  // checked by has_functional_form
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) value = write_back_through(*it, value);
        for (Node* m = before->next(); m != n; m = m->next()) m->copyMetadata(n);
        current = value;
        n->destroy();  // its result has no uses left (prepare() below)
        continue;
      }
    }
    n->replaceInputWith(t, current);
    for (auto* b : n->blocks()) replace_reads(b, t, current);
  }
  block->return_node()->replaceInputWith(t, current);
  return current;
}

bool is_top_return(const Node* n) {
  return n->kind() == c10::prim::Return && n->owningBlock() == n->owningGraph()->block();
}

// A read of a view that the view can be taken again before: an argument of an op that neither
// writes nor returns it (no alias annotation), a list or tuple only such ops read, the graph's outputs.
bool fresh_read(const torch::jit::Use& use) {
  Node* user = use.user;
  if (is_top_return(user)) return true;
  if (user->kind() == c10::prim::ListConstruct || user->kind() == c10::prim::TupleConstruct) {
    for (const auto& u : user->output()->uses())
      if (!fresh_read(u) || u.user->kind() == c10::prim::ListConstruct || u.user->kind() == c10::prim::TupleConstruct ||
          u.user->owningBlock() != user->owningBlock())
        return false;
    return true;
  }
  auto schema = user->maybeSchema();
  if (!schema || schema->is_vararg() || use.offset >= schema->arguments().size()) return false;
  return !schema->arguments()[use.offset].alias_info();
}

// The exact views of t (transitively), the writes into t or them, and whether threading is exact.
// Also makes the writes' results (aliases of their targets) read their targets instead.
struct Aliases {
  std::vector<Value*> views;
  std::vector<Node*> writes;
};

bool analyze(Value* t, Aliases& a) {
  std::vector<Value*> todo{t};
  std::vector<Value*> direct{t};  // t and writes' results that are t
  std::unordered_set<Value*> is_direct{t};
  while (!todo.empty()) {
    Value* v = todo.back();
    todo.pop_back();
    const std::vector<torch::jit::Use> uses = v->uses();
    for (const auto& use : uses) {
      Node* user = use.user;
      if (use.offset == 0 && writes_first_input(user)) {
        if (!has_functional_form(user)) return false;
        a.writes.push_back(user);
        todo.push_back(user->output());
        if (is_direct.count(v)) {
          direct.push_back(user->output());
          is_direct.insert(user->output());
        } else {
          a.views.push_back(user->output());  // a write's result: the view it wrote
        }
      } else if (use.offset == 0 && is_view_of_input(user)) {
        if (!is_exact_view(user) || !write_back_known(user)) return false;
        a.views.push_back(user->output());
        todo.push_back(user->output());
      }
    }
  }
  if (a.writes.empty()) return false;
  auto written_after = [&](const Node* n) {
    for (auto* w : a.writes)
      if (w->isAfter(n)) return true;
    return false;
  };
  // t itself: leaving a block or carried by a loop makes another name for it, which would not see
  // later writes.
  for (auto* v : direct)
    for (const auto& use : v->uses()) {
      Node* user = use.user;
      if (user->kind() == c10::prim::Loop) return false;
      if (user->kind() == c10::prim::Return && !is_top_return(user)) {
        Node* owner = user->owningBlock()->owningNode();
        // A loop body carrying its own carried input on (`done = f(done)` in a while loop, f
        // inlined): the body returns t's newest value in the same slot.
        bool carried_on = owner->kind() == c10::prim::Loop && t->node()->kind() == c10::prim::Param &&
                          t->node()->owningBlock() == user->owningBlock() && use.offset == t->offset();
        if (!carried_on && (owner->kind() != c10::prim::If || written_after(owner))) return false;
      }
      // A list or tuple holding t, read after a write: it holds the written tensor.
      if (user->kind() == c10::prim::ListConstruct || user->kind() == c10::prim::TupleConstruct)
        for (auto* w : a.writes)
          for (const auto& held : user->output()->uses())
            if (w->isAfter(user) && held.user->isAfter(w)) return false;
    }
  // Views: each read must be one the view can be taken again for.
  for (auto* v : a.views)
    for (const auto& use : v->uses()) {
      Node* user = use.user;
      if (use.offset == 0 && (writes_first_input(user) || is_exact_view(user))) continue;
      if (!fresh_read(use)) return false;
    }
  // Where the writes are: inside a block below t's (what the other passes cannot rewrite), or t is
  // a loop body's carried input, whose value outside nothing reads afterwards.
  Node* tn = t->node();
  if (tn->kind() == c10::prim::Param) {
    Block* b = tn->owningBlock();
    Node* owner = b->owningNode();
    if (!owner) {
      bool nested = false;
      for (auto* w : a.writes) nested |= w->owningBlock() != b;
      return nested;
    }
    if (owner->kind() != c10::prim::Loop) return false;
    size_t k = t->offset();
    if (k == 0) return false;  // the trip counter
    Value* outer = owner->input(k + 1);
    if (is_view_of_input(outer->node()) || writes_first_input(outer->node())) return false;
    for (const auto& use : outer->uses())
      if (use.user != owner && !use.user->isBefore(owner)) return false;
    return true;
  }
  for (auto* w : a.writes)
    if (w->owningBlock() != tn->owningBlock()) return true;
  return false;
}

// The exact views from t down to v (outermost first).
std::vector<Node*> chain_to(Value* v, Value* t) {
  std::vector<Node*> chain;
  while (v != t) {
    chain.insert(chain.begin(), v->node());
    v = v->node()->input(0);
  }
  return chain;
}

// Writes' results replaced by their targets (the same tensor), then every view taken again right
// before each read or write of it.
void prepare(Value* t, Aliases& a) {
  for (auto* w : a.writes) w->output()->replaceAllUsesWith(w->input(0));
  for (auto* v : a.views) {
    if (writes_first_input(v->node())) continue;  // a write's result: no uses left
    const std::vector<torch::jit::Use> uses = v->uses();
    for (const auto& use : uses) {
      Node* user = use.user;
      if (use.offset == 0 && is_exact_view(user)) continue;  // taken again with the view below it
      Value* again = t;
      for (Node* view : chain_to(v, t)) {
        Value* base = again;
        Node* copy = t->owningGraph()->createClone(view, [&](Value* in) { return in == view->input(0) ? base : in; });
        copy->insertBefore(user);
        again = copy->output();
      }
      user->replaceInput(use.offset, again);
    }
  }
}

void collect(Block* block, std::vector<Value*>& out) {
  for (auto* v : block->inputs())
    if (v->type()->kind() == c10::TypeKind::TensorType) out.push_back(v);
  for (auto* n : block->nodes()) {
    // Writes' results and views alias another tensor: they are threaded with it.
    if (!writes_first_input(n) && !is_view_of_input(n))
      for (auto* v : n->outputs())
        if (v->type()->kind() == c10::TypeKind::TensorType) out.push_back(v);
    for (auto* b : n->blocks()) collect(b, out);
  }
}

}  // namespace

void thread_tensor_mutation(const std::shared_ptr<torch::jit::Graph>& graph) {
  std::vector<Value*> tensors;
  collect(graph->block(), tensors);
  for (auto* t : tensors) {
    Aliases a;
    if (!analyze(t, a)) continue;
    prepare(t, a);
    Node* after = t->node()->kind() == c10::prim::Param ? nullptr : t->node();
    thread(t->node()->owningBlock(), after, t, t);
  }
}

}  // namespace t2o::core
