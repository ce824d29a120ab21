// Why forward() still reads module state after freezing, as one line.
//
// Freezing (torch::jit::freeze) turns every module attribute that forward() reads but never changes
// into a constant: tensors, numbers, strings, lists, tuples, dicts, Optional values, buffers,
// self.training, submodules in containers and interface-typed submodules. What it keeps are the
// attributes forward() changes while it runs: assigned (prim::SetAttr: `self.n += 1`,
// `self.running = ...`, also inside a branch) or written in place (`self.total.add_(x)`,
// `self.history.append(x)`, a write into a view of a buffer). Most of these became values inside the
// call before freezing (state_in_call.cpp); what is left is what a private copy of the state would
// not reproduce (a tensor tied to another attribute, ...), refused naming the attribute, its module
// and where forward() writes it.
//
// Freezing decides "never changes" with libtorch's alias analysis, which gives up on a tensor that may
// alias anything a write reaches: under libtorch 2.14 a scripted nn.MultiheadAttention writes
// masked_fill_ into zeros_like(mask), whose result 2.14's analysis calls a wildcard, and in_proj_weight
// (put into the wildcard set by split/chunk) stays an attribute. fold_unwritten_tensor_attributes
// follows each remaining tensor read through what may alias it (views, lists, tuples, branches and
// loops) and makes it a constant when nothing writes any of it.
#include "prepare/passes.hpp"

#include "common/locations.hpp"

#include <torch/csrc/jit/runtime/operator.h>

#include <functional>
#include <optional>
#include <unordered_set>

namespace t2o::core {

namespace {

using torch::jit::Node;
using torch::jit::Value;

// "stats.running" for self.stats.running: the prim::GetAttr names from self to `object`.
std::string path_of(Value* object) {
  std::string path;
  for (Value* v = object; v->node()->kind() == c10::prim::GetAttr; v = v->node()->input(0))
    path = v->node()->s(c10::attr::name) + (path.empty() ? "" : "." + path);
  return path;
}

std::string describe(Value* object, const std::string& attribute) {
  std::string module = path_of(object);
  std::string owner = module.empty() ? "the top-level module" : "module '" + module + "'";
  if (auto cls = object->type()->cast<c10::ClassType>())
    if (cls->name()) owner += " (" + cls->name()->name() + ")";
  return "attribute '" + attribute + "' of " + owner;
}


// The outputs of `user` that alias its input `offset` (views: `Tensor(a) self -> Tensor(a)`).
std::vector<Value*> aliases_of(Node* user, size_t offset) {
  std::vector<Value*> out;
  const c10::FunctionSchema* schema = user->maybeSchema();
  if (!schema || offset >= schema->arguments().size()) return out;
  const auto* in_alias = schema->arguments()[offset].alias_info();
  if (!in_alias) return out;
  for (size_t k = 0; k < schema->returns().size() && k < user->outputs().size(); ++k) {
    const auto* out_alias = schema->returns()[k].alias_info();
    if (out_alias && out_alias->beforeSets() == in_alias->beforeSets()) out.push_back(user->output(k));
  }
  return out;
}

// The first node that writes into `v` or a view of it, or null.
Node* in_place_write(Value* v, std::unordered_set<Value*>& seen) {
  if (!seen.insert(v).second) return nullptr;
  for (const auto& use : v->uses()) {
    if (writes_input(use.user, use.offset)) return use.user;
    for (Value* alias : aliases_of(use.user, use.offset))
      if (Node* n = in_place_write(alias, seen)) return n;
  }
  return nullptr;
}

// Where a write is, for the message: prim::SetAttr carries no source position (nor the inlined
// call stack), so an assignment is placed by the value it assigns, else by the block it is in.
std::string where(Node* n) {
  auto placed = [](Node* m) { return m->sourceRange().source() != nullptr; };
  if (!placed(n) && n->kind() == c10::prim::SetAttr) {
    Node* value = n->input(1)->node();
    if (placed(value) && value->kind() != c10::prim::Param) return location_of(value);
    for (Node* outer = n->owningBlock()->owningNode(); outer; outer = outer->owningBlock()->owningNode())
      if (placed(outer)) return location_of(outer);
  }
  return location_of(n);
}

struct Finding {
  std::string what;  // "attribute 'n' of module 'a.b' (Cls)"
  Node* where = nullptr;
  std::string how;  // "assigned", "written in place by aten::add_"
};

void scan(torch::jit::Block* block, std::vector<Finding>& writes, std::vector<Finding>& reads) {
  for (Node* n : block->nodes()) {
    for (auto* b : n->blocks()) scan(b, writes, reads);
    if (n->kind() == c10::prim::SetAttr) {
      writes.push_back({describe(n->input(0), n->s(c10::attr::name)), n, "assigned"});
    } else if (n->kind() == c10::prim::GetAttr && !n->output()->type()->cast<c10::ClassType>()) {
      std::unordered_set<Value*> seen;
      Finding f{describe(n->input(0), n->s(c10::attr::name)), n, ""};
      if (Node* w = in_place_write(n->output(), seen)) {
        f.where = w;
        f.how = std::string("written in place by ") + w->kind().toQualString();
        writes.push_back(f);
      } else {
        reads.push_back(f);
      }
    }
  }
}

// Whether a value that may alias the module attribute `v` reaches a write: an in-place op ((a!) in
// its schema), an assignment to an attribute, or a use this cannot follow (a call, a fork, an op whose
// aliasing libtorch only knows conservatively). Follows every output an aliasing input may flow to:
// views ((a) in/out), containers and their elements ((a -> *): the container written gets it),
// tuple/list construction and unpacking, branch and loop results, loop-carried values.
bool may_be_written(Value* v, std::unordered_set<Value*>& seen) {
  if (!seen.insert(v).second) return false;
  static const std::unordered_set<c10::Symbol> passes_on = {
      c10::prim::ListConstruct, c10::prim::ListUnpack, c10::prim::TupleConstruct, c10::prim::TupleUnpack,
      c10::prim::TupleIndex, c10::prim::TupleSlice, c10::prim::DictConstruct, c10::prim::unchecked_cast};
  for (const auto& use : v->uses()) {
    Node* user = use.user;
    const size_t offset = use.offset;
    if (user->kind() == c10::prim::Return) {
      Node* owner = user->owningBlock()->owningNode();
      if (!owner) continue;  // a graph output: returned, not written
      if (owner->kind() == c10::prim::If) {
        if (may_be_written(owner->output(offset), seen)) return true;
      } else if (owner->kind() == c10::prim::Loop) {
        // body returns: [continue, carried...]; body inputs: [iteration, carried...]
        if (offset >= 1 && (may_be_written(owner->output(offset - 1), seen) ||
                            may_be_written(user->owningBlock()->inputs().at(offset), seen)))
          return true;
      } else {
        return true;
      }
      continue;
    }
    if (user->kind() == c10::prim::Loop) {
      if (offset < 2) continue;  // trip count, condition
      if (may_be_written(user->blocks()[0]->inputs().at(offset - 1), seen) ||
          may_be_written(user->output(offset - 2), seen))
        return true;
      continue;
    }
    if (passes_on.count(user->kind())) {
      for (Value* out : user->outputs())
        if (may_be_written(out, seen)) return true;
      continue;
    }
    const c10::FunctionSchema* schema = user->maybeSchema();
    const torch::jit::Operator* op = user->maybeOperator();
    if (!schema || !op || op->aliasAnalysisKind() == c10::AliasAnalysisKind::CONSERVATIVE || !user->blocks().empty())
      return true;
    if (offset >= schema->arguments().size()) return true;  // vararg: unknown
    const auto* alias = schema->arguments()[offset].alias_info();
    if (!alias) continue;  // read only, results fresh
    if (alias->isWrite()) return true;
    for (Value* out : user->outputs())
      if (may_be_written(out, seen)) return true;
    // Put into a container the op writes (append, insert, _set_item): the container holds it now.
    for (size_t k = 0; k < user->inputs().size(); ++k)
      if (k != offset && writes_input(user, k) && may_be_written(user->input(k), seen)) return true;
  }
  return false;
}

// The object `self.a.b` reads, from the module, or nothing when the chain does not start at self.
std::optional<c10::IValue> attribute_value(Node* get, const torch::jit::Module& module, Value* self) {
  std::vector<std::string> names;
  Value* v = get->output();
  for (; v != self; v = v->node()->input(0)) {
    if (v->node()->kind() != c10::prim::GetAttr) return std::nullopt;
    names.push_back(v->node()->s(c10::attr::name));
  }
  c10::IValue value = module._ivalue();
  for (auto it = names.rbegin(); it != names.rend(); ++it) {
    if (!value.isObject()) return std::nullopt;
    auto object = value.toObject();
    if (!object->type()->hasAttribute(*it)) return std::nullopt;
    value = object->getAttr(*it);
  }
  return value;
}

}  // namespace

int fold_unwritten_tensor_attributes(const torch::jit::Module& frozen) {
  auto graph = frozen.get_method("forward").graph();
  if (graph->inputs().empty()) return 0;
  Value* self = graph->inputs()[0];
  std::vector<Node*> reads;
  bool assigned = false;
  std::function<void(torch::jit::Block*)> collect = [&](torch::jit::Block* block) {
    for (Node* n : block->nodes()) {
      for (auto* b : n->blocks()) collect(b);
      assigned |= n->kind() == c10::prim::SetAttr;
      if (n->kind() == c10::prim::GetAttr && n->output()->type()->cast<c10::TensorType>()) reads.push_back(n);
    }
  };
  collect(graph->block());
  if (assigned || reads.empty()) return 0;
  // All or nothing: a write into one attribute may show through another (views of one buffer).
  std::unordered_set<Value*> seen;
  std::vector<std::pair<Node*, at::Tensor>> folds;
  for (Node* n : reads) {
    auto value = attribute_value(n, frozen, self);
    if (!value || !value->isTensor() || may_be_written(n->output(), seen)) return 0;
    folds.emplace_back(n, value->toTensor());
  }
  for (auto& [n, tensor] : folds) {
    torch::jit::WithInsertPoint here(n);
    // As freezing's constants: detached, no gradient.
    at::Tensor constant = tensor.detach();
    n->output()->replaceAllUsesWith(graph->insertConstant(constant));
    n->destroy();
  }
  // The module objects only those reads needed.
  std::function<void(torch::jit::Block*)> drop = [&](torch::jit::Block* block) {
    for (auto it = block->nodes().rbegin(); it != block->nodes().rend(); ++it) {
      for (auto* b : it->blocks()) drop(b);
      if (it->kind() == c10::prim::GetAttr && !it->output()->hasUses()) it.destroyCurrent();
    }
  };
  drop(graph->block());
  return (int)folds.size();
}

bool writes_input(torch::jit::Node* user, size_t offset) {
  const c10::FunctionSchema* schema = user->maybeSchema();
  if (!schema || offset >= schema->arguments().size()) return false;
  const auto* alias = schema->arguments()[offset].alias_info();
  return alias && alias->isWrite();
}

std::string module_state_error(const torch::jit::Module& frozen) {
  auto graph = frozen.get_method("forward").graph();
  std::vector<Finding> writes, reads;
  scan(graph->block(), writes, reads);
  if (!writes.empty()) {
    const Finding& first = writes.front();
    std::string others;
    for (size_t i = 1; i < writes.size(); ++i)
      if (writes[i].what != first.what && others.find(writes[i].what) == std::string::npos)
        others += (others.empty() ? "" : "; ") + writes[i].what;
    return "forward() changes module state at run time, which an ONNX model cannot keep between runs: " +
           first.what + " is " + first.how + " at " + where(first.where) +
           (others.empty() ? "" : " (also: " + others + ")");
  }
  if (!reads.empty())
    return "forward() still reads module state after freezing: " + reads.front().what + " at " +
           location_of(reads.front().where) + " could not become a constant";
  return "forward() still reads module state after freezing (unsupported attribute use)";
}

}  // namespace t2o::core
