// Pass 1b (passes.hpp): the running-statistics updates of a normalization layer in training mode.
//
// In training mode nn.BatchNorm's forward() counts the batches it has seen
// (`self.num_batches_tracked.add_(1)`, traced as aten::add_ on the buffer) and aten::batch_norm
// updates running_mean/running_var inside the op. torch.onnx exports neither: the exported graph
// normalizes with the batch's statistics and keeps no state between runs (its in-place pass makes
// the buffer write functional and the result, read by nothing, is dead). Before freezing (which
// would keep a buffer forward() writes as an attribute, refused as module state, and would take every
// attribute as possibly written), such a write here becomes its functional op and the reads after it
// in the same branch see the new value (momentum=None reads the count back): freezing then makes the
// buffer a constant, and the update is computed where it is used and dropped otherwise.
//
// Only buffers named as _NormBase names them (running_mean, running_var, num_batches_tracked) are
// handled, written in place directly (aten::add_, no view) and never assigned, with no read after
// the branch that writes them: any other state a model changes at run time is still refused with the
// attribute's name (module_state.cpp).
#include "prepare/passes.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace t2o::core {

namespace {

using torch::jit::Node;
using torch::jit::Value;

bool is_running_stat(const std::string& name) {
  return name == "running_mean" || name == "running_var" || name == "num_batches_tracked";
}

// The attribute names from self to `object` ("bn" for self.bn), or nullopt when `object` is not
// reached from self through prim::GetAttr.
std::optional<std::vector<std::string>> path_from_self(Value* object, Value* self) {
  std::vector<std::string> path;
  Value* v = object;
  while (v != self) {
    if (v->node()->kind() != c10::prim::GetAttr) return std::nullopt;
    path.insert(path.begin(), v->node()->s(c10::attr::name));
    v = v->node()->input(0);
  }
  return path;
}

std::string joined(const std::vector<std::string>& path, const std::string& last) {
  std::string out;
  for (const auto& p : path) out += p + ".";
  return out + last;
}

// Whether an output of `user` aliases its input `offset` (a view, or the in-place op's own result).
bool may_alias_input(Node* user, size_t offset) {
  if (user->kind() == c10::prim::SetAttr || user->kind() == c10::prim::ListConstruct ||
      user->kind() == c10::prim::TupleConstruct || user->kind() == c10::prim::DictConstruct ||
      user->kind() == c10::prim::Return)
    return true;  // the tensor escapes into a container, an attribute or an output
  const c10::FunctionSchema* schema = user->maybeSchema();
  if (!schema) return !user->blocks().empty() || user->kind().is_prim();  // unknown: assume it may
  if (offset >= schema->arguments().size()) return true;
  return schema->arguments()[offset].alias_info() != nullptr;
}

// Whether `node` sits in `block` or in a block nested inside it.
bool within(const torch::jit::Block* block, const Node* node) {
  for (const torch::jit::Block* b = node->owningBlock(); b; b = b->owningNode() ? b->owningNode()->owningBlock() : nullptr)
    if (b == block) return true;
  return false;
}

}  // namespace

std::vector<std::string> drop_running_stat_updates(const std::shared_ptr<torch::jit::Graph>& graph) {
  if (graph->inputs().empty()) return {};
  Value* self = graph->inputs()[0];
  // Every prim::GetAttr of a running-statistics buffer reached from self, by "path.name".
  std::map<std::string, std::vector<Node*>> reads;
  std::set<std::string> assigned;
  std::function<void(torch::jit::Block*)> collect = [&](torch::jit::Block* block) {
    for (Node* n : block->nodes()) {
      for (auto* b : n->blocks()) collect(b);
      bool get = n->kind() == c10::prim::GetAttr, set = n->kind() == c10::prim::SetAttr;
      if ((!get && !set) || !is_running_stat(n->s(c10::attr::name))) continue;
      auto path = path_from_self(n->input(0), self);
      if (!path) continue;
      const std::string key = joined(*path, n->s(c10::attr::name));
      if (set) assigned.insert(key);
      else if (n->output()->type()->kind() == c10::TypeKind::TensorType) reads[key].push_back(n);
    }
  };
  collect(graph->block());

  std::vector<std::string> dropped;
  for (auto& [key, nodes] : reads) {
    if (assigned.count(key)) continue;  // assigned (self.x = ...): left to the module-state refusal
    // The in-place writers (aten::add_ on the buffer), each to become its functional op; every other
    // use a plain read (no view, no container, no output).
    std::vector<Node*> writers;
    bool ok = true;
    for (Node* read : nodes)
      for (const auto& use : read->output()->uses()) {
        if (writes_input(use.user, use.offset)) {
          const std::string kind = use.user->kind().toQualString();
          if (kind.size() > 1 && kind.back() == '_' && use.offset == 0) writers.push_back(use.user);
          else ok = false;
        } else if (may_alias_input(use.user, use.offset)) {
          ok = false;
        }
      }
    if (!ok || writers.empty()) continue;
    std::sort(writers.begin(), writers.end(), [](Node* x, Node* y) { return x->isBefore(y); });
    // A read after a write sees the written value: only where the write surely ran, in the writer's
    // block or nested in it (num_batches_tracked read back for momentum=None is); a read after the
    // branch that holds the write would need the value threaded out of it: refused as before.
    for (Node* w : writers)
      for (Node* read : nodes)
        for (const auto& use : read->output()->uses())
          if (use.user != w && use.user->isAfter(w) && !within(w->owningBlock(), use.user)) ok = false;
    if (!ok) continue;
    for (Node* w : writers) {
      const std::string kind = w->kind().toQualString();
      Node* functional = graph->create(c10::Symbol::fromQualString(kind.substr(0, kind.size() - 1)), w->inputs(), 1);
      functional->insertBefore(w);
      functional->output()->setType(w->output()->type());
      if (!functional->maybeSchema()) {  // no functional twin with these arguments: leave the write
        functional->destroy();
        ok = false;
        break;
      }
      functional->setSourceRange(w->sourceRange());
      if (w->callstack()) functional->setCallStack(*w->callstack());
      std::vector<Value*> olds{w->input(0)};
      for (Node* read : nodes) olds.push_back(read->output());
      w->output()->replaceAllUsesWith(functional->output());
      for (Value* old : olds) {
        std::vector<torch::jit::Use> uses = old->uses();
        for (const auto& use : uses)
          if (use.user != functional && use.user != w && use.user->isAfter(functional) &&
              within(functional->owningBlock(), use.user))
            use.user->replaceInputWith(old, functional->output());
      }
      w->destroy();
    }
    if (ok) dropped.push_back(key);
  }
  return dropped;
}

// aten::instance_norm reads running_mean/running_var (nn.InstanceNorm*d with
// track_running_stats=True), but libtorch's freezing leaves them as attributes: its alias analysis
// takes the op as possibly writing them (it does, with use_input_stats=True, which the output never
// reads). torch.onnx's symbolic reads them as constants and drops the update; so do we: a buffer
// read only as instance_norm's running statistics becomes a constant copy of its value before
// freezing.
void constant_instance_norm_stats(const torch::jit::Module& module, const std::shared_ptr<torch::jit::Graph>& graph) {
  if (graph->inputs().empty()) return;
  Value* self = graph->inputs()[0];
  static const c10::Symbol kInstanceNorm = c10::Symbol::fromQualString("aten::instance_norm");
  std::function<void(torch::jit::Block*)> visit = [&](torch::jit::Block* block) {
    for (Node* n : block->nodes()) {
      for (auto* b : n->blocks()) visit(b);
      if (n->kind() != c10::prim::GetAttr || !is_running_stat(n->s(c10::attr::name)) ||
          n->output()->type()->kind() != c10::TypeKind::TensorType || !n->output()->hasUses())
        continue;
      bool only_stats = true;
      for (const auto& use : n->output()->uses())
        only_stats &= use.user->kind() == kInstanceNorm && (use.offset == 3 || use.offset == 4);
      auto path = path_from_self(n->input(0), self);
      if (!only_stats || !path) continue;
      torch::jit::Module owner = module;
      bool found = true;
      for (const auto& name : *path) {
        if (!owner.hasattr(name) || !owner.attr(name).isModule()) { found = false; break; }
        owner = owner.attr(name).toModule();
      }
      if (!found || !owner.hasattr(n->s(c10::attr::name))) continue;
      auto value = owner.attr(n->s(c10::attr::name));
      if (!value.isTensor()) continue;
      torch::jit::WithInsertPoint here(n);
      n->output()->replaceAllUsesWith(graph->insertConstant(value.toTensor().detach().clone()));
    }
  };
  visit(graph->block());
}

}  // namespace t2o::core
