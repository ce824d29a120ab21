// Pass 1c (passes.hpp): module state written and read inside one call of forward().
//
// `self.n += 1`, `self.cache = torch.cat([self.cache, x])`, `self.total.add_(x)`,
// `self.history.append(x)`, also inside if/loop blocks: PyTorch keeps the new value in the module,
// and a later read in the same call sees it. An ONNX model keeps nothing between runs, so, as
// torch.onnx (its remove_inplace_ops_for_onnx turns prim::GetAttr/SetAttr into values), the export
// computes the values of one call made on the state as saved, and warns naming the attribute.
//
// Before freezing, on forward()'s inlined graph (self its input 0), for each attribute so written:
// one read of the saved value at the top of the graph, made private (aten::clone of a tensor,
// aten::list of a list) so the rest writes a local value; every prim::SetAttr makes the value set
// the current one and every prim::GetAttr reads the current one, threaded out of the blocks that
// assign it (an extra output of an if, a carried value of a loop). In-place writes then land in the
// private copy and are made functional by the passes that handle local tensors and lists. Freezing
// makes the saved value a constant.
//
// Left to the module-state refusal (module_state.cpp), where one ONNX run could differ from one
// PyTorch call: an attribute not reached from self through attributes, an object or dict
// attribute, an Optional or tuple written in place, a tensor that shares its storage with another
// attribute (a write through one is seen through the other), a list whose elements are written in
// place (the elements are shared with the saved list).
#include "prepare/passes.hpp"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>

namespace t2o::core {

namespace {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

// The attribute names from self to `object` (empty for self), or nullopt when `object` is not
// reached from self through prim::GetAttr.
std::optional<std::vector<std::string>> path_from_self(Value* object, Value* self) {
  std::vector<std::string> path;
  for (Value* v = object; v != self; v = v->node()->input(0)) {
    if (v->node()->kind() != c10::prim::GetAttr) return std::nullopt;
    path.insert(path.begin(), v->node()->s(c10::attr::name));
  }
  return path;
}


// The outputs of `user` that may alias its input `offset`: views and in-place results (their
// schema's alias set), and the elements taken out of a list (`t[](a) -> t(*)`).
std::vector<Value*> aliases_of(Node* user, size_t offset) {
  std::vector<Value*> out;
  const c10::FunctionSchema* schema = user->maybeSchema();
  if (!schema || offset >= schema->arguments().size()) return out;
  const auto* in_alias = schema->arguments()[offset].alias_info();
  if (!in_alias) return out;
  for (size_t k = 0; k < schema->returns().size() && k < user->outputs().size(); ++k) {
    const auto* out_alias = schema->returns()[k].alias_info();
    if (!out_alias) continue;
    bool shared = out_alias->beforeSets() == in_alias->beforeSets();
    for (const auto& contained : in_alias->containedTypes()) shared |= contained.beforeSets() == out_alias->beforeSets();
    if (shared || out_alias->isWildcardBefore()) out.push_back(user->output(k));
  }
  return out;
}

// Whether `v`, or a value aliasing it, is written in place (elements: only what aliases an element,
// not the container itself).
bool written_in_place(Value* v, std::unordered_set<Value*>& seen, bool elements_only = false) {
  if (!seen.insert(v).second) return false;
  for (const auto& use : v->uses()) {
    if (!elements_only && writes_input(use.user, use.offset)) return true;
    for (Value* alias : aliases_of(use.user, use.offset)) {
      bool element = alias->type()->kind() != v->type()->kind();
      if (written_in_place(alias, seen, elements_only && !element)) return true;
    }
  }
  return false;
}

struct Attribute {
  std::vector<std::string> path;  // modules from self
  std::string name;
  c10::TypePtr type;              // as the owning class declares it
  std::vector<Node*> nodes;       // its prim::GetAttr / prim::SetAttr
  bool assigned = false, written = false, elements_written = false;
  std::string key() const {
    std::string k;
    for (const auto& p : path) k += p + ".";
    return k + name;
  }
};

// Whether a block nested in `n` assigns the attribute (so its new value leaves the block).
bool assigns_within(Node* n, const std::set<Node*>& setters) {
  for (Block* b : n->blocks())
    for (Node* m : b->nodes())
      if (setters.count(m) || assigns_within(m, setters)) return true;
  return false;
}

// Replaces reads and assignments of one attribute in `block` by values, starting from `current`;
// returns the value the attribute holds at the end of the block.
Value* thread(Block* block, Value* current, const Attribute& attr, const std::set<Node*>& getters,
              const std::set<Node*>& setters) {
  for (auto it = block->nodes().begin(); it != block->nodes().end();) {
    Node* n = *it;
    ++it;
    if (getters.count(n)) {
      n->output()->replaceAllUsesWith(current);
      n->destroy();
      continue;
    }
    if (setters.count(n)) {
      current = n->input(1);
      n->destroy();
      continue;
    }
    if (n->blocks().empty()) continue;
    if (!assigns_within(n, setters)) {
      for (Block* b : n->blocks()) thread(b, current, attr, getters, setters);
      continue;
    }
    if (n->kind() == c10::prim::Loop) {
      // Carried: the loop's inputs are (trip count, condition, carried...), its body's (i, carried...)
      // and its outputs (condition, carried...).
      Block* body = n->blocks()[0];
      n->addInput(current);
      Value* carried = body->addInput()->setType(attr.type);
      body->registerOutput(thread(body, carried, attr, getters, setters));
      current = n->addOutput()->setType(attr.type);
    } else {  // prim::If (the only other node with blocks left after inlining that can assign)
      for (Block* b : n->blocks()) b->registerOutput(thread(b, current, attr, getters, setters));
      current = n->addOutput()->setType(attr.type);
    }
  }
  return current;
}

// Whether the tensor `t` shares storage with a tensor attribute of `object` or of a module under it
// other than `except` (its own slot).
bool shares_storage(const c10::IValue& root, const at::Tensor& t, const c10::ivalue::Object* owner,
                    const std::string& except) {
  std::function<bool(const c10::IValue&)> visit = [&](const c10::IValue& v) -> bool {
    if (v.isTensor()) {
      const at::Tensor& u = v.toTensor();
      return u.defined() && u.has_storage() && t.has_storage() && u.storage().is_alias_of(t.storage());
    }
    if (v.isList()) {
      for (const auto& e : v.toListRef())
        if (visit(e)) return true;
      return false;
    }
    if (v.isTuple()) {
      for (const auto& e : v.toTupleRef().elements())
        if (visit(e)) return true;
      return false;
    }
    if (v.isGenericDict()) {
      for (const auto& e : v.toGenericDict())
        if (visit(e.value())) return true;
      return false;
    }
    if (v.isObject()) {
      auto obj = v.toObject();
      for (size_t i = 0; i < obj->slots().size(); ++i) {
        if (obj.get() == owner && obj->type()->getAttributeName(i) == except) continue;
        if (visit(obj->getSlot(i))) return true;
      }
    }
    return false;
  };
  return visit(root);
}

bool kind_handled(const c10::TypePtr& type, bool written) {
  switch (type->kind()) {
    case c10::TypeKind::TensorType:
    case c10::TypeKind::ListType:
    case c10::TypeKind::IntType:
    case c10::TypeKind::FloatType:
    case c10::TypeKind::BoolType:
    case c10::TypeKind::StringType:
      return true;
    case c10::TypeKind::OptionalType:
    case c10::TypeKind::TupleType:
      return !written;  // assigned only: immutable values
    default:
      return false;
  }
}

}  // namespace

std::vector<std::string> thread_module_state(const std::shared_ptr<torch::jit::Graph>& graph,
                                             const torch::jit::Module& module) {
  if (graph->inputs().empty()) return {};
  Value* self = graph->inputs()[0];
  std::map<std::string, Attribute> attrs;
  std::set<std::string> unreachable;  // attribute names also used through an object not reached from self
  std::function<void(Block*)> collect = [&](Block* block) {
    for (Node* n : block->nodes()) {
      for (Block* b : n->blocks()) collect(b);
      const bool get = n->kind() == c10::prim::GetAttr, set = n->kind() == c10::prim::SetAttr;
      if (!get && !set) continue;
      const std::string name = n->s(c10::attr::name);
      auto path = path_from_self(n->input(0), self);
      if (!path) {
        unreachable.insert(name);
        continue;
      }
      auto cls = n->input(0)->type()->cast<c10::ClassType>();
      if (!cls || !cls->hasAttribute(name)) continue;
      c10::TypePtr type = cls->getAttribute(name);
      if (auto held = type->cast<c10::ClassType>()) continue;  // a submodule (or object): a step of a path
      Attribute probe{*path, name, type, {}};
      Attribute& a = attrs.emplace(probe.key(), probe).first->second;
      a.nodes.push_back(n);
      if (set) {
        a.assigned = true;
      } else {
        std::unordered_set<Value*> seen;
        a.written |= written_in_place(n->output(), seen);
        seen.clear();
        if (n->output()->type()->kind() == c10::TypeKind::ListType)
          a.elements_written |= written_in_place(n->output(), seen, /*elements_only=*/true);
      }
    }
  };
  collect(graph->block());

  std::vector<std::string> threaded;
  for (auto& [key, a] : attrs) {
    if (!a.assigned && !a.written) continue;  // only read: freezing makes it a constant
    if (unreachable.count(a.name) || !kind_handled(a.type, a.written) || a.elements_written) continue;
    // Values set inside forward() may be written in place too; only then does aliasing matter.
    for (Node* n : a.nodes)
      if (n->kind() == c10::prim::SetAttr && n->input(1)->type()->kind() == c10::TypeKind::ListType) {
        std::unordered_set<Value*> seen;
        a.elements_written |= written_in_place(n->input(1), seen, true);
      }
    if (a.elements_written) continue;
    // An assignment inside a block other than an if or a loop's (none is left after inlining).
    bool plain_blocks = true;
    for (Node* n : a.nodes)
      for (Node* outer = n->owningBlock()->owningNode(); outer; outer = outer->owningBlock()->owningNode())
        plain_blocks &= outer->kind() == c10::prim::If || outer->kind() == c10::prim::Loop;
    if (!plain_blocks) continue;
    // The saved value, from the module.
    c10::intrusive_ptr<c10::ivalue::Object> owner = module._ivalue();
    for (const auto& step : a.path) owner = owner->getAttr(step).toObject();
    const c10::IValue saved = owner->getAttr(a.name);
    if (saved.isTensor() && saved.toTensor().defined() &&
        shares_storage(module._ivalue(), saved.toTensor(), owner.get(), a.name))
      continue;  // tied to another attribute: a write through one is seen through the other
    if (saved.isList())
      for (const auto& e : saved.toListRef())
        if (e.isTensor() && e.toTensor().defined() && shares_storage(module._ivalue(), e.toTensor(), owner.get(), a.name))
          a.elements_written = true;  // (a copied list still shares its elements)
    if (a.elements_written) continue;

    // The saved value read once, at the top, and made private.
    torch::jit::WithInsertPoint top(graph->nodes().front());
    Value* object = self;
    for (const auto& step : a.path) object = graph->insertGetAttr(object, step);
    Value* initial = graph->insertGetAttr(object, a.name);
    initial->setType(a.type);
    if (a.type->kind() == c10::TypeKind::TensorType) {
      Node* copy = graph->create(c10::aten::clone, {initial, graph->insertConstant(c10::IValue())}, 1);
      graph->insertNode(copy)->output()->setType(a.type);
      initial = copy->output();
    } else if (a.type->kind() == c10::TypeKind::ListType) {
      Node* copy = graph->create(c10::aten::list, {initial}, 1);
      graph->insertNode(copy)->output()->setType(a.type);
      initial = copy->output();
    }
    std::set<Node*> getters, setters;
    for (Node* n : a.nodes) (n->kind() == c10::prim::SetAttr ? setters : getters).insert(n);
    thread(graph->block(), initial, a, getters, setters);
    threaded.push_back(key);
  }
  return threaded;
}

void warn_state_in_call(const std::vector<std::string>& threaded, const std::function<void(const std::string&)>& warn) {
  if (!warn) return;
  for (const auto& key : threaded)
    warn("state '" + key + "' is written inside forward(); the ONNX model computes one call's values and does not " +
         "keep it between runs");
}

}  // namespace t2o::core
