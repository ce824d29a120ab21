// Sizes that depend on the data, marked after the example runs (mark_data_dependent_sizes,
// example_run.hpp): results of ifs whose branches give other sizes, loop-carried values whose sizes
// change between iterations, the lengths of nonzero/unique/masked results, and what is computed from
// them, get -1 dims. Split from example_run.cpp, which calls it.
#include "run/example_run.hpp"

#include "prepare/passes.hpp"
#include "torch2onnx/core/dtype_table.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace t2o::core {

namespace {

// A list of tensors whose items' types are recorded one by one (item_dims: split's parts, which the
// converter types from them) has those marked with its first item's dims: every dim of every item
// (all = true), or dim 0 of the items whose dim 0 is `length` (of any length when `length` < 0).
void mark_items(TensorInfo& info, bool all, int64_t length = -1) {
  for (auto& dims : info.item_dims) {
    if (all) std::fill(dims.begin(), dims.end(), -1);
    else if (!dims.empty() && (length < 0 || dims[0] == length)) dims[0] = -1;
  }
}

// The dims of `into` that `other` disagrees with become -1; returns whether any changed.
bool merge_dims(TensorInfo& into, const TensorInfo* other) {
  if (!other || !into.known_rank || !other->known_rank || other->list_elements != into.list_elements) return false;
  if (other->dims.size() != into.dims.size()) {
    into.known_rank = false;
    into.dims.clear();
    into.item_dims.clear();
    into.item_dtypes.clear();
    into.items_vary = true;
    return true;
  }
  bool changed = false;
  for (size_t d = 0; d < into.dims.size(); ++d)
    if (into.dims[d] >= 0 && into.dims[d] != other->dims[d]) {
      into.dims[d] = -1;
      changed = true;
    }
  // The items of a list (one per part of a split) as its first: the other's items where both have
  // the same count and ranks, else no per-item record.
  if (into.list_elements && !into.item_dims.empty()) {
    bool same = !other->items_vary && other->item_dims.size() == into.item_dims.size();
    for (size_t k = 0; same && k < into.item_dims.size(); ++k) same = other->item_dims[k].size() == into.item_dims[k].size();
    if (!same) {
      into.item_dims.clear();
      into.item_dtypes.clear();
      into.items_vary = true;
      return true;
    }
    for (size_t k = 0; k < into.item_dims.size(); ++k)
      for (size_t d = 0; d < into.item_dims[k].size(); ++d)
        if (into.item_dims[k][d] >= 0 && into.item_dims[k][d] != other->item_dims[k][d]) {
          into.item_dims[k][d] = -1;
          changed = true;
        }
  }
  return changed;
}

// Values computed from the data (tensor contents of the inputs), as opposed to constants and sizes:
// what a run-time number read from a tensor (aten::Int of a box's height) depends on. Sizes, ranks
// and dtypes of data are not data: the dynamic-axes runs tell how those vary.
class DataFlow {
 public:
  explicit DataFlow(torch::jit::Block* top) {
    for (auto* in : top->inputs())
      if (in->type()->kind() != c10::TypeKind::ClassType) data_.insert(in);
    visit(top);
  }
  bool is_data(const torch::jit::Value* v) const { return data_.count(v) > 0; }

  // Whether a node's result sizes may follow a run-time number read from the data: an argument
  // declared int or int[] (or Scalar, for the range ops) that is data. Indices (select's) and dims
  // never size.
  bool sized_by_data(const torch::jit::Node* node) const {
    static const std::unordered_set<std::string> ranges = {"aten::arange", "aten::range", "aten::linspace",
                                                           "aten::logspace"};
    const auto* schema = node->maybeSchema();
    const bool range = ranges.count(node->kind().toQualString()) > 0;
    if (!schema) return false;  // prim:: ops (list construction, int arithmetic) pass data on, size nothing
    bool makes_tensor = false;  // int arithmetic (aten::add.int) passes data on too
    for (const auto* out : node->outputs()) makes_tensor |= is_tensor_type(out->type()) || is_tensor_list(out->type());
    if (!makes_tensor) return false;
    for (size_t i = 0; i < node->inputs().size() && i < schema->arguments().size(); ++i) {
      if (!is_data(node->input(i))) continue;
      const auto& arg = schema->arguments()[i];
      if (arg.name() == "index" || arg.name() == "dim" || arg.name() == "dims") continue;
      // The declared type: a Scalar (add's other, full's fill value) sizes nothing but a range.
      c10::TypePtr type = arg.type();
      if (auto opt = type->cast<c10::OptionalType>()) type = opt->getElementType();
      if (auto list = type->cast<c10::ListType>()) type = list->getElementType();
      if (type->kind() == c10::TypeKind::IntType || type->kind() == c10::TypeKind::SymIntType) return true;
      if (range && type->kind() == c10::TypeKind::NumberType) return true;
    }
    return false;
  }

 private:
  static bool reads_only_metadata(const torch::jit::Node* node) {
    static const std::unordered_set<std::string> kinds = {
        "aten::size", "aten::sizes", "aten::dim", "aten::numel", "aten::_shape_as_tensor", "prim::shape",
        "aten::len", "prim::dtype", "prim::device", "prim::layout", "aten::is_floating_point",
        "aten::__is__", "aten::__isnot__", "prim::is_cuda", "aten::is_complex"};
    return kinds.count(node->kind().toQualString()) > 0;
  }
  // Marks v as data; returns whether it was not before.
  bool mark(const torch::jit::Value* v) { return data_.insert(v).second; }

  void visit(torch::jit::Block* block) {
    for (auto* node : block->nodes()) {
      if (node->kind() == c10::prim::Loop) {
        auto* body = node->blocks()[0];
        if (is_data(node->input(0))) mark(body->inputs()[0]);
        for (size_t k = 0; k + 2 < node->inputs().size(); ++k)
          if (is_data(node->input(k + 2))) mark(body->inputs()[k + 1]);
        // Carried values become data when an iteration makes them so: repeat until nothing changes.
        for (bool changed = true; changed;) {
          visit(body);
          changed = false;
          for (size_t k = 0; k + 1 < body->outputs().size(); ++k)
            if (is_data(body->outputs()[k + 1])) changed |= mark(body->inputs()[k + 1]);
        }
        for (size_t k = 0; k < node->outputs().size(); ++k)
          if (is_data(node->input(k + 2)) || is_data(body->outputs()[k + 1])) mark(node->output(k));
        continue;
      }
      for (auto* b : node->blocks()) visit(b);
      if (reads_only_metadata(node)) continue;
      bool data = false;
      for (auto* in : node->inputs()) data |= is_data(in);
      for (auto* b : node->blocks())
        for (auto* out : b->outputs()) data |= is_data(out);
      if (data)
        for (auto* out : node->outputs()) mark(out);
    }
  }

  std::unordered_set<const torch::jit::Value*> data_;
};

void mark_sizes(torch::jit::Block* block, TypeTable& types, std::unordered_set<const torch::jit::Value*>& varying,
                bool value_ops, const DataFlow& flow) {
  auto settle = [&](torch::jit::Value* out, std::initializer_list<const torch::jit::Value*> sources) {
    TensorInfo* info = types.find(out);
    bool changed = false, inherited = false;
    for (const auto* src : sources) {
      inherited |= varying.count(src) > 0;
      if (info) changed |= merge_dims(*info, types.find(src));
    }
    if (changed || inherited) varying.insert(out);
  };
  for (auto* node : block->nodes()) {
    if (node->kind() == c10::prim::If) {
      for (auto* b : node->blocks()) mark_sizes(b, types, varying, value_ops, flow);
      for (size_t k = 0; k < node->outputs().size(); ++k)
        settle(node->output(k), {node->blocks()[0]->outputs()[k], node->blocks()[1]->outputs()[k]});
      continue;
    }
    if (node->kind() == c10::prim::Loop) {
      auto* body = node->blocks()[0];
      for (size_t k = 0; k < node->outputs().size(); ++k)
        settle(body->inputs()[k + 1], {node->input(k + 2), body->outputs()[k + 1]});
      mark_sizes(body, types, varying, value_ops, flow);
      for (size_t k = 0; k < node->outputs().size(); ++k)
        settle(node->output(k), {node->input(k + 2), body->inputs()[k + 1], body->outputs()[k + 1]});
      continue;
    }
    // An op whose sizes follow its input values, when merge_value_run could not tell which dims.
    // So is one whose sizes follow a number read from the data (interpolate to int(box height)):
    // the example runs may have met the same number every time.
    bool from_varying = (value_ops && has_data_dependent_size(node)) || flow.sized_by_data(node);
    for (auto* in : node->inputs()) from_varying |= varying.count(in) > 0;
    for (auto* b : node->blocks()) mark_sizes(b, types, varying, value_ops, flow);
    if (!from_varying) continue;
    // Computed from a value whose size depends on the data: its own sizes may too.
    for (auto* out : node->outputs()) {
      varying.insert(out);
      if (TensorInfo* info = types.find(out)) {
        if (info->known_rank) std::fill(info->dims.begin(), info->dims.end(), -1);
        mark_items(*info, true);
      }
    }
  }
}

// Ops whose result length (dim 0) depends on their inputs' values: nonzero and its kin, and indexing
// by a boolean mask (score[score > thresh]).
bool data_dependent_length(const torch::jit::Node* node, const TypeTable& types) {
  static const std::unordered_set<std::string> kinds = {
      "aten::nonzero", "aten::nonzero_numpy", "aten::masked_select", "aten::unique", "aten::_unique",
      "aten::_unique2", "aten::unique_dim", "aten::unique_consecutive", "torchvision::nms"};
  const std::string kind = node->kind().toQualString();
  if (kinds.count(kind) > 0 || (kind == "aten::where" && node->inputs().size() == 1)) return true;
  if (node->kind() != c10::aten::index || node->inputs().size() != 2) return false;
  const auto* list = node->input(1)->node();
  if (list->kind() != c10::prim::ListConstruct) return false;
  for (const auto* index : list->inputs()) {
    const TensorInfo* info = types.find(index);
    if (info && (info->dtype == onnx_value_dtype(at::kBool) || info->dtype == onnx_value_dtype(at::kByte)))
      return true;
  }
  return false;
}

// A slice or narrow along dim 0 of a value whose dim 0 is a data-dependent length (keep[:100] after
// nms), or its topk (topk(min(400, n)) of the scores kept): its length is min(bound, that length),
// so the same in both runs whenever both kept enough.
bool truncates_length(const torch::jit::Node* node, const TypeTable& types) {
  static const auto narrow = c10::Symbol::fromQualString("aten::narrow");
  static const auto topk = c10::Symbol::fromQualString("aten::topk");
  const bool topk_node = node->kind() == topk;
  if (node->kind() != c10::aten::slice && node->kind() != narrow && !topk_node) return false;
  if (node->inputs().size() < (topk_node ? 3u : 2u)) return false;
  const TensorInfo* in = types.find(node->input(0));
  if (!in || !in->known_rank || in->dims.empty() || in->dims[0] >= 0) return false;
  auto dim = torch::jit::toIValue(node->input(topk_node ? 2 : 1));
  return dim && dim->isInt() && (dim->toInt() == 0 || dim->toInt() == -(int64_t)in->dims.size());
}

// The lengths of data-dependent results (nonzero, where(cond), nms, unique …) are dynamic even when
// both example runs happened to agree on them (a feature level that receives no box, or as many, in
// either run), and so is dim 0 of every value computed from them whose dim 0 equals one of those
// lengths (boxes[keep], rois of a level, their RoIAlign features …). Dims elsewhere are kept: the
// lengths travel along dim 0 in the models that have them, and marking every dim would lose the
// static sizes that symbolics need (unbind's count, channel counts).
void mark_counted(torch::jit::Block* block, TypeTable& types,
                  std::unordered_map<const torch::jit::Value*, std::set<int64_t>>& counted) {
  for (auto* node : block->nodes()) {
    for (auto* b : node->blocks()) mark_counted(b, types, counted);
    std::set<int64_t> lengths;
    bool from_counted = false;  // also when the runs already disagreed on the length (none carried)
    for (auto* in : node->inputs()) {
      auto it = counted.find(in);
      if (it == counted.end()) continue;
      from_counted = true;
      lengths.insert(it->second.begin(), it->second.end());
    }
    const bool source = data_dependent_length(node, types) || (from_counted && truncates_length(node, types));
    if (!source && !from_counted) continue;
    // Non-tensor results (lists of indices, sizes read from a counted tensor) carry the lengths on.
    for (auto* out : node->outputs()) {
      std::set<int64_t> carried = lengths;
      TensorInfo* info = types.find(out);
      if (info && info->known_rank && !info->dims.empty()) {
        if (source && info->dims[0] >= 0) carried.insert(info->dims[0]);
        // A list's items (split's parts, typed one by one) are marked as its first item is: the
        // proposals' boxes split per image keep the proposals' count dynamic.
        for (const auto& item : info->item_dims)
          if (source && !item.empty() && item[0] >= 0) carried.insert(item[0]);
        if (source) mark_items(*info, false);
        else
          for (int64_t length : carried) mark_items(*info, false, length);
        if (source || carried.count(info->dims[0])) info->dims[0] = -1;
      }
      counted[out] = std::move(carried);
    }
  }
}

}  // namespace

void mark_data_dependent_sizes(torch::jit::Block* block, TypeTable& types, bool value_ops,
                               const std::vector<const torch::jit::Value*>& varying_inputs) {
  std::unordered_set<const torch::jit::Value*> varying(varying_inputs.begin(), varying_inputs.end());
  const DataFlow flow(block);
  mark_sizes(block, types, varying, value_ops, flow);
  std::unordered_map<const torch::jit::Value*, std::set<int64_t>> counted;
  mark_counted(block, types, counted);
}

}  // namespace t2o::core
