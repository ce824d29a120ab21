// Part of pass 3 (passes.hpp): in-place writes into a tensor from inside if/loop blocks. libtorch's
// RemoveTensorMutation leaves a write such as `y.index_add_(...)` inside a loop body when y was made
// outside it, and converting the node alone loses the write (the symbolic returns a new tensor;
// later reads of y see the old one); a write `y[idx] = v` inside a branch it even makes a functional
// op nothing reads, and the branch disappears. Runs before it. Each such write becomes its
// functional op (aten::index_add_ -> aten::index_add, same arguments) and the newest value is
// threaded through the blocks: an extra output of each if, a carried value of each loop, as
// thread_list_mutation does for lists. Only tensors with no views (a view would see the write) and
// whose writes all have a functional op are rewritten; others are left to the core's lost-write check.
#include "prepare/passes.hpp"
#include "common/view_ops.hpp"

#include <functional>
#include <string>

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

// The functional node for in-place write n, reading `current` instead of n's first input; nullptr
// (nothing created) when no functional schema takes these arguments.
Node* functional_of(Node* n, Value* current) {
  std::string name = n->kind().toQualString();
  name.pop_back();
  std::vector<Value*> inputs(n->inputs().begin(), n->inputs().end());
  inputs[0] = current;
  Node* f = n->owningGraph()->create(c10::Symbol::fromQualString(name), inputs, 1);
  if (!f->maybeSchema()) {
    f->destroy();
    return nullptr;
  }
  f->output()->setType(n->output()->type());
  f->setSourceRange(n->sourceRange());
  f->setScope(n->scope());
  if (n->callstack()) f->setCallStack(*n->callstack());
  return f;
}

bool is_write_of(const Node* n, const Value* t) { return writes_first_input(n) && n->input(0) == t; }

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
// newest value through ifs and loops. Returns t's value at the end of the block.
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
    if (is_write_of(n, t)) {
      Node* f = functional_of(n, current);  // checked to exist before the rewrite began
      f->insertBefore(n);
      n->output()->replaceAllUsesWith(f->output());
      current = f->output();
      n->destroy();
      continue;
    }
    n->replaceInputWith(t, current);
    for (auto* b : n->blocks()) replace_reads(b, t, current);
  }
  block->return_node()->replaceInputWith(t, current);
  return current;
}

// Every use of t and of the values its writes return (they alias t) in a nested block, with the checks.
bool threadable(Value* t) {
  bool nested_write = false;
  std::function<bool(Value*)> check = [&](Value* v) {
    const std::vector<torch::jit::Use> uses = v->uses();  // functional_of adds (and removes) a use of v
    for (const auto& use : uses) {
      Node* user = use.user;
      if (use.offset == 0 && is_view_of_input(user)) return false;  // a view would see the write
      if (use.offset == 0 && writes_first_input(user)) {
        Node* f = functional_of(user, user->input(0));
        if (!f) return false;
        f->destroy();
        nested_write |= user->owningBlock() != t->node()->owningBlock();
        if (!check(user->output())) return false;
      }
    }
    return true;
  };
  return check(t) && nested_write;
}

void collect(Block* block, std::vector<Value*>& out) {
  for (auto* v : block->inputs())
    if (v->type()->kind() == c10::TypeKind::TensorType) out.push_back(v);
  for (auto* n : block->nodes()) {
    for (auto* v : n->outputs())
      if (v->type()->kind() == c10::TypeKind::TensorType) out.push_back(v);
    for (auto* b : n->blocks()) collect(b, out);
  }
}

}  // namespace

void thread_tensor_mutation(const std::shared_ptr<torch::jit::Graph>& graph) {
  std::vector<Value*> tensors;
  collect(graph->block(), tensors);
  std::vector<Value*> chosen;
  for (auto* t : tensors)
    if (threadable(t)) chosen.push_back(t);
  for (auto* t : chosen) {
    // The writes return t itself (Tensor(a!)): their outputs are t for every later read.
    std::function<void(Value*)> merge = [&](Value* v) {
      std::vector<Node*> writes;
      for (const auto& use : v->uses())
        if (use.offset == 0 && writes_first_input(use.user) && v != t) writes.push_back(use.user);
      for (auto* w : writes) w->replaceInputWith(v, t);
    };
    for (const auto& use : std::vector<torch::jit::Use>(t->uses()))
      if (use.offset == 0 && writes_first_input(use.user)) {
        Value* out = use.user->output();
        merge(out);
      }
    Node* after = t->node()->kind() == c10::prim::Param ? nullptr : t->node();
    thread(t->node()->owningBlock(), after, t, t);
  }
}

}  // namespace t2o::core
