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
#include "prepare/passes.hpp"

#include "common/locations.hpp"

#include <functional>
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

}  // namespace

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
