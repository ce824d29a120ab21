// Part of pass 3: dicts a scripted forward() builds and fills (`out = {}` or `dict()`, then
// `out["out"] = x`, as torchvision's segmentation models build their output) become one
// prim::DictConstruct per point of use, holding the entries written so far in insertion order (a
// key written again keeps its place, as in Python). Reads with a constant key (`d["a"]`, `d.get`,
// `in`, `len`) become the value written. The packs then see only DictConstruct, which flattens a
// dict output into its values in insertion order, as torch.onnx does.
//
// Only dicts whose every write is `aten::_set_item` with a constant string key, in the block that
// made the dict, are rewritten; a dict written inside a branch or loop, with a key computed at run
// time, by another mutating op (pop, update, clear, setdefault, del), or that escapes into a
// container or another op before its last write is left as it is; the converter then refuses the
// write with what dict_write_refusal() says of it.
#include "prepare/dict_writes.hpp"
#include "prepare/passes.hpp"

#include "common/locations.hpp"

#include <torch/csrc/jit/ir/ir.h>

#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace t2o::core {

namespace {

const c10::Symbol kSetItem = c10::Symbol::fromQualString("aten::_set_item");
const c10::Symbol kGetItem = c10::Symbol::fromQualString("aten::__getitem__");
const c10::Symbol kGet = c10::Symbol::fromQualString("aten::get");
const c10::Symbol kContains = c10::Symbol::fromQualString("aten::__contains__");
const c10::Symbol kLen = c10::Symbol::fromQualString("aten::len");
const c10::Symbol kDict = c10::Symbol::fromQualString("aten::dict");

bool mutates_dict(const torch::jit::Node* n) {
  static const std::unordered_set<std::string> ops = {"aten::_set_item", "aten::pop",        "aten::popitem",
                                                      "aten::clear",     "aten::update",     "aten::setdefault",
                                                      "aten::Delete"};
  return ops.count(n->kind().toQualString()) > 0;
}

std::optional<std::string> const_key(torch::jit::Value* v) {
  auto iv = torch::jit::toIValue(v);
  if (!iv || !iv->isString()) return std::nullopt;
  return iv->toStringRef();
}

bool string_keyed(const torch::jit::Value* v) {
  auto dict = v->type()->cast<c10::DictType>();
  return dict && dict->getKeyType()->kind() == c10::TypeKind::StringType;
}

// The node of `block` that holds `n` (n itself, or the node whose blocks hold it); nullptr if none.
torch::jit::Node* ancestor_in(torch::jit::Block* block, torch::jit::Node* n) {
  while (n && n->owningBlock() != block) n = n->owningBlock()->owningNode();
  return n;
}

struct Entries {
  std::vector<std::string> keys;
  std::vector<torch::jit::Value*> values;

  std::optional<size_t> find(const std::string& k) const {
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == k) return i;
    return std::nullopt;
  }
};

// Whether `dict` (made by `maker`) can be rewritten: see the file comment.
bool rewritable(torch::jit::Node* maker, torch::jit::Value* dict) {
  torch::jit::Block* block = maker->owningBlock();
  torch::jit::Node* last_write = nullptr;
  for (const auto& use : dict->uses()) {
    auto* user = use.user;
    if (!mutates_dict(user)) continue;
    if (user->kind() != kSetItem || use.offset != 0 || user->owningBlock() != block || !const_key(user->input(1)))
      return false;
    if (!last_write || last_write->isBefore(user)) last_write = user;
  }
  if (!last_write) return true;
  for (const auto& use : dict->uses()) {
    auto* user = use.user;
    auto kind = user->kind();
    if (kind == kSetItem || user == block->return_node()) continue;
    if (use.offset == 0 && (kind == kGetItem || kind == kGet || kind == kContains || kind == kLen)) continue;
    // Anything else (a container, another op, control flow) sees a copy of the entries as they are
    // there, which is the dict itself only when no write follows.
    auto* at = ancestor_in(block, user);
    if (!at || !last_write->isBefore(at)) return false;
  }
  return true;
}

torch::jit::Value* construct(torch::jit::Graph& graph, const Entries& e, const c10::TypePtr& type) {
  std::vector<torch::jit::Value*> inputs;
  for (size_t i = 0; i < e.keys.size(); ++i) {
    inputs.push_back(graph.insertConstant(e.keys[i]));
    inputs.push_back(e.values[i]);
  }
  auto* n = graph.insertNode(graph.create(c10::prim::DictConstruct, inputs, 1));
  n->output()->setType(type);
  return n->output();
}

bool rewrite(torch::jit::Node* maker) {
  auto* dict = maker->output();
  auto& graph = *maker->owningGraph();
  torch::jit::Block* block = maker->owningBlock();
  Entries e;
  for (size_t i = 0; i + 1 < maker->inputs().size(); i += 2) {
    auto k = const_key(maker->input(i));
    if (!k) return false;
    if (auto at = e.find(*k)) e.values[*at] = maker->input(i + 1);
    else e.keys.push_back(*k), e.values.push_back(maker->input(i + 1));
  }
  if (!rewritable(maker, dict)) return false;
  // The uses in block order: writes and reads update or read the entries as they are at that point.
  std::vector<torch::jit::Node*> order;
  for (auto* n = maker->next(); n != block->return_node(); n = n->next()) order.push_back(n);
  for (auto* n : order) {
    std::vector<torch::jit::Node*> users;
    for (const auto& use : dict->uses())
      if (use.user != block->return_node() && ancestor_in(block, use.user) == n) users.push_back(use.user);
    for (auto* user : users) {
      auto kind = user->kind();
      torch::jit::WithInsertPoint here(user);
      if (kind == kSetItem) {
        auto k = *const_key(user->input(1));
        if (auto at = e.find(k)) e.values[*at] = user->input(2);
        else e.keys.push_back(k), e.values.push_back(user->input(2));
        user->destroy();
        continue;
      }
      torch::jit::Value* result = nullptr;
      if (kind == kLen && user->input(0) == dict) {
        result = graph.insertConstant((int64_t)e.keys.size());
      } else if ((kind == kGetItem || kind == kGet || kind == kContains) && user->input(0) == dict) {
        if (auto k = const_key(user->input(1))) {
          auto at = e.find(*k);
          if (kind == kContains) result = graph.insertConstant(at.has_value());
          else if (at) result = e.values[*at];
          else if (kind == kGet)
            result = user->inputs().size() > 2 ? user->input(2) : graph.insertConstant(c10::IValue());
        }
      }
      if (result) {
        user->output()->replaceAllUsesWith(result);
        user->destroy();
        continue;
      }
      // Any other use, or a read the entries cannot answer (a key computed at run time, a missing
      // key that raises): it reads a dict holding the entries as they are here.
      torch::jit::WithInsertPoint before(ancestor_in(block, user));
      user->replaceInputWith(dict, construct(graph, e, dict->type()));
    }
  }
  if (dict->hasUses()) {  // returned by the block
    torch::jit::WithInsertPoint at_end(block->return_node());
    block->return_node()->replaceInputWith(dict, construct(graph, e, dict->type()));
  }
  maker->destroy();
  return true;
}

void collect(torch::jit::Block* block, std::vector<torch::jit::Node*>& makers) {
  for (auto* n : block->nodes()) {
    for (auto* b : n->blocks()) collect(b, makers);
    if (n->outputs().size() != 1 || !string_keyed(n->output())) continue;
    if (n->kind() == c10::prim::DictConstruct) makers.push_back(n);
    // dict() makes an empty dict; dict(d) a copy, which the rewrite of d left reading a
    // DictConstruct of d's entries at that point.
    if (n->kind() == kDict && n->inputs().size() <= 1) makers.push_back(n);
  }
}

// The node that made `dict` (DictConstruct, aten::dict) in the graph; nullptr for any other source.
torch::jit::Node* maker_of(torch::jit::Value* dict) {
  auto* n = dict->node();
  return n->kind() == c10::prim::DictConstruct || n->kind() == kDict ? n : nullptr;
}

std::string where(const torch::jit::Node* n) { return n->kind().toQualString() + std::string(" at ") + location_of(n); }

}  // namespace

std::string dict_write_refusal(const torch::jit::Node* node) {
  if (!mutates_dict(node) || node->inputs().empty() || !node->input(0)->type()->cast<c10::DictType>()) return "";
  auto* dict = node->input(0);
  const std::string why = " (ONNX has no dicts: a dict becomes its entries, so its keys and writes must be known at "
                          "export time)";
  if (!string_keyed(dict))
    return "a dict with " + dict->type()->cast<c10::DictType>()->getKeyType()->str() + " keys is written" + why;
  auto* maker = maker_of(dict);
  if (!maker) return "a dict written that the graph did not make (" + where(dict->node()) + ")" + why;
  // The write that kept the dict from being folded (every write of it is refused with this reason).
  torch::jit::Block* block = maker->owningBlock();
  for (const auto& use : dict->uses()) {
    auto* user = use.user;
    if (!mutates_dict(user)) continue;
    if (user->kind() != kSetItem)
      return std::string("a dict changed by ") + user->kind().toUnqualString() + "() at " + location_of(user) +
             " (only `d[key] = value` is exported)" + why;
    if (!const_key(user->input(1))) return "a dict written under a key computed at run time (at " + location_of(user) + ")" + why;
    if (user->owningBlock() != block) {
      auto* inner = user->owningBlock()->owningNode();
      if (!inner) return "a dict written outside the block that made it" + why;
      std::string what = inner->kind() == c10::prim::Loop ? "a loop" : inner->kind() == c10::prim::If ? "a branch" : "a block";
      return "a dict written inside " + what + " (" + where(inner) + ")" + why;
    }
  }
  // Every write is in the dict's block: another op took the dict before a write.
  for (const auto& use : dict->uses()) {
    auto* at = ancestor_in(block, use.user);
    if (!at || mutates_dict(use.user) || use.user == block->return_node()) continue;
    auto k = use.user->kind();
    if (use.offset == 0 && (k == kGetItem || k == kGet || k == kContains || k == kLen)) continue;
    for (const auto& w : dict->uses())
      if (w.user->kind() == kSetItem && at->isBefore(w.user))
        return "a dict written after " + where(use.user) + " took it" + why;
  }
  return "a dict written where its entries cannot be followed" + why;
}

bool fold_dict_writes(const std::shared_ptr<torch::jit::Graph>& graph) {
  bool changed = false;
  std::vector<torch::jit::Node*> makers;
  collect(graph->block(), makers);
  for (auto* maker : makers) {
    if (maker->kind() == kDict) {
      // dict() makes an empty dict; dict(d) copies d, which the rewrite of d left reading a
      // DictConstruct of d's entries there, used only by this copy (a dict that was not rewritten
      // has its writes as further uses: left as it is).
      if (maker->inputs().size() == 1) {
        auto* src = maker->input(0);
        if (src->node()->kind() != c10::prim::DictConstruct || src->uses().size() != 1) continue;
      }
      // A fresh DictConstruct with the copied entries, rewritten like any other.
      torch::jit::WithInsertPoint here(maker);
      std::vector<torch::jit::Value*> inputs;
      if (!maker->inputs().empty())
        for (auto* v : maker->input(0)->node()->inputs()) inputs.push_back(v);
      auto* made = graph->insertNode(graph->create(c10::prim::DictConstruct, inputs, 1));
      made->output()->setType(maker->output()->type());
      maker->output()->replaceAllUsesWith(made->output());
      maker->destroy();
      maker = made;
    }
    changed |= rewrite(maker);
  }
  return changed;
}

bool refold_dict_writes(const std::shared_ptr<torch::jit::Graph>& graph) {
  bool writes = false;
  std::function<void(torch::jit::Block*)> scan = [&](torch::jit::Block* b) {
    for (auto* n : b->nodes()) {
      writes |= mutates_dict(n) && !n->inputs().empty() && n->input(0)->type()->cast<c10::DictType>();
      for (auto* inner : n->blocks()) scan(inner);
    }
  };
  scan(graph->block());
  return writes && fold_dict_writes(graph);
}

}  // namespace t2o::core
