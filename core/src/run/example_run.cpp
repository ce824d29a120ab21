#include "run/example_run.hpp"

#include "prepare/passes.hpp"
#include "torch2onnx/core/dtype_table.hpp"

#include <torch/csrc/jit/ir/alias_analysis.h>
#include <torch/csrc/jit/runtime/custom_operator.h>
#include <torch/csrc/jit/runtime/interpreter.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <set>
#include <unordered_set>
#include <iostream>

namespace t2o::core {

void TypeTable::observe(size_t id, int32_t dtype, const std::vector<int64_t>& dims, bool list_elements) {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) {
    TensorInfo info;
    info.dtype = dtype;
    info.dims = dims;
    info.known_rank = true;
    info.list_elements = list_elements;
    by_id_.emplace(id, std::move(info));
    return;
  }
  TensorInfo& info = it->second;
  if (!info.dtype) info.dtype = dtype;
  if (!info.known_rank) return;
  if (info.dims.size() != dims.size()) {
    info.known_rank = false;
    info.dims.clear();
    return;
  }
  for (size_t d = 0; d < dims.size(); ++d)
    if (info.dims[d] != dims[d]) info.dims[d] = -1;
}

void TypeTable::observe(size_t id, const at::Tensor& t, bool list_elements) {
  bool fresh = !by_id_.count(id);
  observe(id, onnx_value_dtype(t.scalar_type()).value_or(0), t.sizes().vec(), list_elements);
  if (!fresh) return;
  TensorInfo& info = by_id_[id];
  info.quantized = onnx_quantized_integer_dtype(t.scalar_type()).value_or(0);
  if (info.quantized && t.qscheme() == at::kPerTensorAffine) {
    info.q_scale = t.q_scale();
    info.q_zero_point = t.q_zero_point();
  }
}

// Another sighting's items into `info`'s: a length that differs drops the per-item record, a dim that
// differs becomes -1, a rank that differs drops it too (the items then have no single type).
static void merge_items(TensorInfo& info, const std::vector<int32_t>& dtypes, const std::vector<std::vector<int64_t>>& dims) {
  if (info.items_vary) return;
  bool same = dims.size() == info.item_dims.size();
  for (size_t k = 0; same && k < dims.size(); ++k)
    same = dims[k].size() == info.item_dims[k].size() && dtypes[k] == info.item_dtypes[k];
  if (!same) {
    info.items_vary = true;
    info.item_dtypes.clear();
    info.item_dims.clear();
    return;
  }
  for (size_t k = 0; k < dims.size(); ++k)
    for (size_t d = 0; d < dims[k].size(); ++d)
      if (info.item_dims[k][d] != dims[k][d]) info.item_dims[k][d] = -1;
}

// The items another run saw of the same list (the dynamic-axes or value run) into `info`'s.
static void merge_item_runs(TensorInfo& info, const TensorInfo& other) {
  if (!info.list_elements || info.item_dims.empty()) return;
  if (other.items_vary || other.item_dims.empty()) {
    info.items_vary = true;
    info.item_dtypes.clear();
    info.item_dims.clear();
    return;
  }
  merge_items(info, other.item_dtypes, other.item_dims);
}

void TypeTable::observe_items(size_t id, const std::vector<at::Tensor>& items) {
  auto it = by_id_.find(id);
  if (it == by_id_.end() || it->second.items_vary) return;
  TensorInfo& info = it->second;
  std::vector<int32_t> dtypes;
  std::vector<std::vector<int64_t>> dims;
  for (const at::Tensor& t : items) {
    if (!t.defined()) {
      info.items_vary = true;  // an undefined item has no type to give
      info.item_dtypes.clear();
      info.item_dims.clear();
      return;
    }
    dtypes.push_back(onnx_value_dtype(t.scalar_type()).value_or(0));
    dims.push_back(t.sizes().vec());
  }
  if (info.item_dims.empty() && info.item_dtypes.empty()) {
    info.item_dtypes = std::move(dtypes);
    info.item_dims = std::move(dims);
    return;
  }
  merge_items(info, dtypes, dims);
}

bool is_tensor_type(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::TensorType) return true;
  if (auto opt = type->cast<c10::OptionalType>()) return opt->getElementType()->kind() == c10::TypeKind::TensorType;
  return false;
}

bool is_tensor_list(const c10::TypePtr& type) {
  auto list = type->cast<c10::ListType>();
  return list && list->getElementType()->kind() == c10::TypeKind::TensorType;
}

namespace {

// The table the observers of the run in progress write to (an export runs on one thread).
thread_local TypeTable* observed = nullptr;

// Observers: side-effecting ops placed after each value in the copy of the graph that runs, so a
// value inside a loop body is seen at every iteration and one in a branch whenever it is taken.
torch::jit::RegisterOperators observers({
    torch::jit::Operator(
        "t2o_internal::observe(int id, Tensor x) -> ()",
        [](torch::jit::Stack& stack) {
          // An early `return` leaves prim::Uninitialized in the branches that did not return.
          c10::IValue x = torch::jit::pop(stack);
          int64_t id = torch::jit::pop(stack).toInt();
          if (observed && x.isTensor() && x.toTensor().defined()) observed->observe((size_t)id, x.toTensor());
        },
        c10::AliasAnalysisKind::CONSERVATIVE),
    torch::jit::Operator(
        "t2o_internal::observe_list(int id, Tensor[] x) -> ()",
        [](torch::jit::Stack& stack) {
          c10::IValue x = torch::jit::pop(stack);
          int64_t id = torch::jit::pop(stack).toInt();
          if (!observed || !x.isTensorList()) return;
          auto xs = x.toTensorVector();
          if (!xs.empty() && xs[0].defined()) {
            observed->observe((size_t)id, xs[0], true);
            observed->observe_items((size_t)id, xs);
          }
        },
        c10::AliasAnalysisKind::CONSERVATIVE),
});


at::Tensor to_meta(const at::Tensor& t) {
  auto m = at::empty_strided(t.sizes(), t.strides(), t.options().device(at::kMeta));
  // A traced Python scalar is a "wrapped number": it must keep losing type promotion on meta too.
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) m.unsafeGetTensorImpl()->set_wrapped_number(true);
  return m;
}

// Replaces every tensor constant of a block (nested blocks included) by its meta-device twin.
void constants_to_meta(torch::jit::Block* block) {
  for (auto* n : block->nodes()) {
    for (auto* b : n->blocks()) constants_to_meta(b);
    if (n->kind() != c10::prim::Constant || !n->hasAttribute(c10::attr::value)) continue;
    if (n->kindOf(c10::attr::value) == torch::jit::AttributeKind::t) {
      // 0-d constants stay on the CPU: they mix with meta tensors as scalars, and shape arithmetic
      // on them (x.size(0) // 2 in traced graphs) needs their values.
      if (n->t(c10::attr::value).dim() > 0) n->t_(c10::attr::value, to_meta(n->t(c10::attr::value)));
    } else if (n->kindOf(c10::attr::value) == torch::jit::AttributeKind::ival) {
      auto iv = n->ival(c10::attr::value);
      if (iv.isTensorList()) {
        c10::List<at::Tensor> meta;
        for (const at::Tensor& t : iv.toTensorVector()) meta.push_back(to_meta(t));
        n->ival_(c10::attr::value, c10::IValue(meta));
      } else if (iv.isList()) {
        auto list = iv.toList();
        bool tensors = false;
        for (const c10::IValue& e : list) tensors |= e.isTensor();
        if (!tensors) continue;
        c10::impl::GenericList meta(list.elementType());
        for (const c10::IValue& e : list) meta.push_back(e.isTensor() ? c10::IValue(to_meta(e.toTensor())) : e);
        n->ival_(c10::attr::value, c10::IValue(meta));
      }
    }
  }
}

// Places an observer after every tensor (and list-of-tensors) value of `copy`, named by the
// unique() of the matching value of `orig` (copy() keeps the order of nodes and blocks).
void instrument(torch::jit::Block* orig, torch::jit::Block* copy) {
  auto* graph = copy->owningGraph();
  auto observe_at = [&](torch::jit::Value* o, torch::jit::Value* c, torch::jit::Node* before) {
    const char* op = nullptr;
    if (o->type()->kind() == c10::TypeKind::TensorType) op = "t2o_internal::observe";
    else if (is_tensor_list(o->type())) op = "t2o_internal::observe_list";
    if (!op) return;
    torch::jit::WithInsertPoint guard(before);
    auto* id = graph->insertConstant((int64_t)o->unique());
    graph->insertNode(graph->create(c10::Symbol::fromQualString(op), {id, c}, 0));
  };
  std::vector<torch::jit::Node*> copies(copy->nodes().begin(), copy->nodes().end());
  // Block parameters (a loop body's counter and carried values): seen at each iteration's start.
  for (size_t i = 0; i < orig->inputs().size(); ++i)
    observe_at(orig->inputs()[i], copy->inputs()[i], copy->param_node()->next());
  size_t k = 0;
  for (auto* o : orig->nodes()) {
    auto* c = copies.at(k++);
    for (size_t b = 0; b < o->blocks().size(); ++b) instrument(o->blocks()[b], c->blocks()[b]);
    // Constants need no run; an Uninitialized placeholder holds nothing to observe.
    if (o->kind() == c10::prim::Constant || o->kind() == c10::prim::Uninitialized) continue;
    for (size_t j = 0; j < o->outputs().size(); ++j) observe_at(o->outputs()[j], c->outputs()[j], c->next());
  }
}

}  // namespace

namespace {

// Normalization ops that update their running statistics (inputs 3 and 4) in training mode although
// their schemas do not mark those inputs as written.
bool updates_running_stats(const torch::jit::Node* n) {
  static const std::unordered_set<c10::Symbol> kinds = {
      c10::aten::batch_norm, c10::aten::instance_norm, c10::Symbol::fromQualString("aten::native_batch_norm"),
      c10::Symbol::fromQualString("aten::_batch_norm_impl_index")};
  return kinds.count(n->kind()) && n->inputs().size() > 5;
}

}  // namespace

bool writes_an_input(const torch::jit::Node* n) {
  if (updates_running_stats(n)) return true;
  const c10::FunctionSchema* schema = n->maybeSchema();
  if (!schema) return false;
  for (const auto& arg : schema->arguments())
    if (arg.alias_info() && arg.alias_info()->isWrite()) return true;
  return false;
}

namespace {

bool any_write(const torch::jit::Block* block) {
  for (const auto* n : block->nodes()) {
    if (writes_an_input(n)) return true;
    for (const auto* b : n->blocks())
      if (any_write(b)) return true;
  }
  return false;
}

void collect_constants(torch::jit::Block* block, std::vector<torch::jit::Node*>& out,
                       std::unordered_set<const torch::jit::Value*>& stats) {
  for (auto* n : block->nodes()) {
    for (auto* b : n->blocks()) collect_constants(b, out, stats);
    if (n->kind() == c10::prim::Constant) out.push_back(n);
    if (updates_running_stats(n)) {
      stats.insert(n->input(3));
      stats.insert(n->input(4));
    }
  }
}

// An example run never writes into the model's weights: export_module shares them with the caller's
// module, and a run's writes (a buffer updated in place, BatchNorm's running statistics in training
// mode) must reach neither the caller nor the exported initializers. Constants some node may write
// (directly or through a view) are copied in the run's own graph. Most prepared graphs hold no
// writing node at all, and then no alias analysis is needed.
void copy_written_constants(const std::shared_ptr<torch::jit::Graph>& g) {
  if (!any_write(g->block())) return;
  std::vector<torch::jit::Node*> constants;
  std::unordered_set<const torch::jit::Value*> stats;
  collect_constants(g->block(), constants, stats);
  torch::jit::AliasDb db(g, /*isFrozen=*/true);
  for (auto* c : constants) {
    auto* v = c->output();
    if (!c->hasAttribute(c10::attr::value)) continue;  // None
    if (!stats.count(v) && !db.hasWriters(v)) continue;
    if (c->kindOf(c10::attr::value) == torch::jit::AttributeKind::t) {
      c->t_(c10::attr::value, c->t(c10::attr::value).clone());
    } else if (c->kindOf(c10::attr::value) == torch::jit::AttributeKind::ival) {
      const c10::IValue& iv = c->ival(c10::attr::value);
      if (iv.isTensorList()) {
        c10::List<at::Tensor> copies;
        for (const at::Tensor& t : iv.toTensorVector()) copies.push_back(t.clone());
        c->ival_(c10::attr::value, c10::IValue(copies));
      }
    }
  }
}

// The op that reads graph input `v` directly as probabilities (multinomial, bernoulli, binary
// cross-entropy's input and target: libtorch 2.x checks both lie in [0, 1]), which must be
// non-negative (and at most 1 for most): its made-up values are drawn from U[0, 1) instead of
// N(0, 1). nullptr when there is none.
const torch::jit::Node* reads_probabilities(const torch::jit::Value* v) {
  for (const auto& use : v->uses()) {
    std::string kind = use.user->kind().toQualString();
    if (use.offset == 0 && (kind == "aten::multinomial" || kind == "aten::bernoulli")) return use.user;
    if (use.offset <= 1 && kind == "aten::binary_cross_entropy") return use.user;
    if (use.offset == 1 && kind == "aten::binary_cross_entropy_with_logits") return use.user;
  }
  return nullptr;
}

// Ops that reject some values of an input they read (indices out of range, classes, offsets,
// unsorted boundaries, probabilities): the op that reads graph input `v` directly, or nullptr.
const torch::jit::Node* checks_values(const torch::jit::Value* v) {
  static const std::unordered_set<std::string> ops = {
      "aten::multinomial", "aten::bernoulli", "aten::one_hot",      "aten::embedding",    "aten::embedding_bag",
      "aten::searchsorted", "aten::bucketize", "aten::bincount",    "aten::index_select", "aten::gather",
      "aten::scatter",     "aten::scatter_add", "aten::index",      "aten::take",         "aten::repeat_interleave",
      "aten::binary_cross_entropy"};
  for (const auto& use : v->uses())
    if (ops.count(use.user->kind().toQualString())) return use.user;
  return nullptr;
}

}  // namespace

void link_meta_kernels();  // meta_kernels.cpp
at::Tensor quantized_example(at::IntArrayRef shape, at::ScalarType type);  // quantized_params.cpp

ExampleRun::ExampleRun(const ExportOptions& options, PreparedModel& model, std::vector<InputSpec> specs)
    : options_(options), model_(model), specs_(std::move(specs)) {}

std::vector<std::string> ExampleRun::input_names() const {
  return options_.input_names.empty() ? model_.argument_names : options_.input_names;
}

std::vector<std::string> ExampleRun::output_names() const {
  if (!options_.output_names.empty()) return options_.output_names;
  std::vector<std::string> out;
  for (size_t k = 0; k < model_.graph->outputs().size(); ++k) out.push_back("output_" + std::to_string(k));
  return out;
}

namespace {

// A quantized example input moved to another grid for the grid probe: 1.5 times the scale, the zero
// point 3 steps up (down near the top of the range). Values whose grid moves with it follow the input's.
at::Tensor probe_grid_example(const at::Tensor& t) {
  if (t.qscheme() != at::kPerTensorAffine) return t;
  const int64_t top = t.scalar_type() == at::kQUInt8 ? 255 : t.scalar_type() == at::kQInt8 ? 127 : 1 << 30;
  const int64_t zero_point = t.q_zero_point() + 3 <= top ? t.q_zero_point() + 3 : t.q_zero_point() - 3;
  return at::quantize_per_tensor(t.dequantize(), t.q_scale() * 1.5, zero_point, t.scalar_type());
}

}  // namespace

TypeTable ExampleRun::run_once(const std::vector<std::vector<int64_t>>& shapes) {
  link_meta_kernels();
  // First on the meta device: shapes and dtypes without arithmetic (a ViT's forward pass takes
  // seconds on this machine's BLAS). An op without a meta kernel, or one whose result depends on
  // tensor data (a branch on a value, a loop's trip count) sends us back to a real run on the CPU.
  try {
    return run_on(shapes, true);
  } catch (const std::exception& e) {
    if (std::getenv("T2O_DEBUG")) std::cerr << "meta example run failed: " << error_reason(e.what()) << std::endl;
  }
  // At sizes the user did not give (the runs that find which axes vary), the model may get inputs it
  // cannot take. libtorch's oneDNN LSTM (2.14) then reads past a hidden state of the old batch size
  // (memory corruption, a crash later) where its own kernels raise a size mismatch: oneDNN is off
  // for those runs, which only look at shapes.
  bool given_sizes = shapes.size() == specs_.size();
  for (size_t i = 0; i < shapes.size() && given_sizes; ++i) given_sizes = shapes[i] == specs_[i].dims;
  struct MkldnnOff {
    bool was;
    explicit MkldnnOff(bool off) : was(at::globalContext().userEnabledMkldnn()) {
      if (off) at::globalContext().setUserEnabledMkldnn(false);
    }
    ~MkldnnOff() { at::globalContext().setUserEnabledMkldnn(was); }
  } mkldnn_off(!given_sizes);
  return run_on(shapes, false);
}

// A given example value at another size: along each axis whose size differs, a prefix when smaller
// and the last entry repeated when larger (offsets and sorted values stay valid); undefined when the
// ranks differ or an axis was empty.
static at::Tensor resized_example(const at::Tensor& given, const std::vector<int64_t>& shape) {
  if (given.dim() != (int64_t)shape.size()) return {};
  at::Tensor t = given;
  for (int64_t d = 0; d < given.dim(); ++d) {
    int64_t old_size = t.size(d), new_size = shape[(size_t)d];
    if (old_size == new_size) continue;
    if (old_size == 0) return {};
    at::Tensor index = at::arange(new_size, at::kLong).clamp_max(old_size - 1);
    t = t.index_select(d, index);
  }
  return t.contiguous();
}

TypeTable ExampleRun::run_on(const std::vector<std::vector<int64_t>>& shapes, bool meta, bool probe_grid) {
  torch::jit::Stack stack;
  std::map<size_t, at::Tensor> quantized_fed;  // the quantized inputs fed (their grids are recorded)
  at::manual_seed(0);
  for (size_t i = 0; i < shapes.size(); ++i) {
    auto st = *dtype_from_name(specs_[i].dtype);
    auto opts = at::TensorOptions().dtype(st);
    // Given example values (--example-inputs, torch2onnx.save) feed the run at their own shapes, and
    // the second run at other sizes as resized copies (resized_example): values the model accepts
    // (offsets from 0, sorted values, class ids) rather than made-up ones it may reject.
    at::Tensor resized;
    if (!meta && i < model_.example_values.size() && model_.example_values[i].sizes().vec() != shapes[i])
      resized = resized_example(model_.example_values[i], shapes[i]);
    const at::Tensor* given = i < model_.example_values.size() && model_.example_values[i].sizes().vec() == shapes[i]
                                  ? &model_.example_values[i]
                              : resized.defined() ? &resized
                                                  : nullptr;
    // Integers are ones (integer_fill_, or zeros where the model rejects ones: observe) unless
    // --input-range says otherwise: valid as indices into any non-empty dim, and safe as divisors.
    bool integer = at::isIntegralType(st, /*includeBool=*/false) && !at::isQIntType(st);
    bool probabilities = at::isFloatingType(st) && reads_probabilities(model_.graph->inputs()[i]);
    at::Tensor t = meta                                 ? at::empty(shapes[i], opts.device(at::kMeta))
                   : given                              ? *given
                   : probabilities                      ? at::rand(shapes[i], opts)
                   : at::isFloatingType(st)             ? at::randn(shapes[i], opts)
                   : at::isQIntType(st)                 ? quantized_example(shapes[i], st)
                   : st == at::kBool                    ? at::zeros(shapes[i], opts)
                   : integer && options_.input_range    ? at::randint(options_.input_range->first,
                                                                      options_.input_range->second + 1, shapes[i], opts)
                                                        : at::full(shapes[i], integer_fill_, opts);
    if (probe_grid && !meta && t.is_quantized()) t = probe_grid_example(t);
    if (t.is_quantized()) quantized_fed[i] = t;
    stack.emplace_back(t);
  }
  auto g = model_.graph->copy();
  if (meta) constants_to_meta(g->block());
  copy_written_constants(g);  // after the meta copies: 0-d constants stay on the CPU
  instrument(model_.graph->block(), g->block());
  TypeTable types;
  observed = &types;
  try {
    torch::jit::Code code(g, "forward");
    torch::jit::InterpreterState state(code);
    state.run(stack);
  } catch (...) {
    observed = nullptr;
    throw;
  }
  observed = nullptr;
  for (size_t i = 0; i < model_.graph->inputs().size(); ++i) {
    TensorInfo info;
    auto st = *dtype_from_name(specs_[i].dtype);
    info.dtype = *onnx_value_dtype(st);
    info.quantized = onnx_quantized_integer_dtype(st).value_or(0);
    auto fed_it = quantized_fed.find(i);
    if (info.quantized && fed_it != quantized_fed.end() && fed_it->second.qscheme() == at::kPerTensorAffine) {
      const at::Tensor& fed = fed_it->second;
      info.q_scale = fed.q_scale();
      info.q_zero_point = fed.q_zero_point();
    }
    info.dims = shapes[i];
    info.known_rank = true;
    types.set(model_.graph->inputs()[i], info);
  }
  return types;
}

namespace {

// The second-run shapes to try after `varied` (every dynamic axis one larger) fails: the same rule
// applied to every dynamic axis, so axes of equal size stay equal. Twice the size keeps divisibility
// (pixel_shuffle, chunks); adding the size's power-of-two factor keeps divisibility by it with a
// smaller step; one smaller and half cover models with an upper bound. A result of 1 is skipped:
// a size of 1 broadcasts and would hide the axis.
std::vector<std::vector<std::vector<int64_t>>> other_dynamic_sizes(const std::vector<std::vector<int64_t>>& shapes,
                                                                   const std::vector<std::vector<int64_t>>& varied) {
  std::vector<std::function<int64_t(int64_t)>> rules = {
      [](int64_t s) { return 2 * s; },
      [](int64_t s) { return s + (s & -s); },
      [](int64_t s) { return s - 1; },
      [](int64_t s) { return s % 2 == 0 ? s / 2 : s; },
  };
  std::vector<std::vector<std::vector<int64_t>>> out;
  for (const auto& rule : rules) {
    auto sizes = shapes;
    bool usable = true, changed = false;
    for (size_t i = 0; i < shapes.size() && usable; ++i)
      for (size_t d = 0; d < shapes[i].size(); ++d) {
        if (varied[i][d] == shapes[i][d]) continue;  // not a dynamic axis
        int64_t s = rule(shapes[i][d]);
        if (s <= 1 || s == shapes[i][d]) {
          usable = false;
          break;
        }
        sizes[i][d] = s;
        changed = true;
      }
    if (usable && changed && sizes != varied && std::find(out.begin(), out.end(), sizes) == out.end())
      out.push_back(std::move(sizes));
  }
  return out;
}

}  // namespace

namespace {

// The values of a block and of the blocks inside it, by Value::unique() (never reused in a graph).
void collect_ids(torch::jit::Block* block, std::unordered_set<size_t>& ids) {
  for (auto* v : block->inputs()) ids.insert(v->unique());
  for (auto* n : block->nodes()) {
    for (auto* v : n->outputs()) ids.insert(v->unique());
    for (auto* b : n->blocks()) collect_ids(b, ids);
  }
}

std::unordered_set<size_t> value_ids(torch::jit::Block* block) {
  std::unordered_set<size_t> ids;
  collect_ids(block, ids);
  return ids;
}

// Whether a fold made values the runs cannot have seen (loop bodies unrolled into copies): constants
// aside, a value not in `before`.
bool made_new_values(torch::jit::Block* block, const std::unordered_set<size_t>& before) {
  for (auto* n : block->nodes()) {
    if (n->kind() != c10::prim::Constant)
      for (auto* v : n->outputs())
        if (!before.count(v->unique())) return true;
    for (auto* b : n->blocks()) {
      for (auto* v : b->inputs())
        if (!before.count(v->unique())) return true;
      if (made_new_values(b, before)) return true;
    }
  }
  return false;
}

}  // namespace

DynamicAxesPlan ExampleRun::record(TypeTable& types) {
  const auto& names = model_.argument_names;
  auto list_args = [&]() {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i)
      s += (i ? ", " : "") + names[i] + ": " + model_.argument_types[i]->annotation_str();
    return s;
  };
  if (specs_.size() != names.size()) {
    if (specs_.empty())
      throw ExportError("forward() takes " + std::to_string(names.size()) + " argument(s) (" + list_args() +
                        "); give each with --input TYPE[DIMS], e.g. --input float32[1,3,224,224]");
    throw ExportError("forward() takes " + std::to_string(names.size()) + " argument(s) (" + list_args() + ") but " +
                      std::to_string(specs_.size()) + " --input given" +
                      (model_.missing_defaults.empty() ? "" : " (without a default: " + model_.missing_defaults + ")"));
  }
  for (size_t i = 0; i < specs_.size(); ++i)
    if (!is_tensor_type(model_.argument_types[i]))
      throw ExportError("forward() argument '" + names[i] + "' is " + model_.argument_types[i]->annotation_str() +
                        "; only Tensor arguments can be graph inputs");

  // Dynamic axes: resolve names, check axes against ranks.
  DynamicAxesPlan plan;
  const auto in_names = input_names();
  const auto out_names = output_names();
  std::vector<std::vector<int64_t>> shapes, varied;
  for (const auto& s : specs_) shapes.push_back(s.dims);
  varied = shapes;
  plan.input_symbols.assign(specs_.size(), {});
  plan.output_symbols.assign(out_names.size(), {});
  for (const auto& spec : options_.dynamic_axes) {
    auto in = std::find(in_names.begin(), in_names.end(), spec.name);
    auto out = std::find(out_names.begin(), out_names.end(), spec.name);
    if (in == in_names.end() && out == out_names.end()) {
      std::string valid;
      for (const auto& n : in_names) valid += (valid.empty() ? "" : ", ") + n;
      for (const auto& n : out_names) valid += (valid.empty() ? "" : ", ") + n;
      // As torch.onnx: a key naming no input or output is reported and left out, the export goes on.
      if (options_.warn)
        options_.warn("--dynamic-axes names '" + spec.name + "', which is no input or output (ignored); valid names: " +
                      valid);
      continue;
    }
    if (in != in_names.end()) {
      size_t i = (size_t)(in - in_names.begin());
      for (const auto& [axis, symbol] : spec.axes) {
        if (axis >= (int64_t)shapes[i].size())
          throw ExportError("--dynamic-axes " + spec.name + ": axis " + std::to_string(axis) + " is out of range for " +
                            specs_[i].text);
        plan.input_symbols[i][axis] = symbol.empty() ? spec.name + "_dim" + std::to_string(axis) : symbol;
        // A different size for the second run; equal sizes stay equal, so inputs that share an axis agree.
        varied[i][(size_t)axis] = shapes[i][(size_t)axis] + 1;
      }
    } else {
      size_t k = (size_t)(out - out_names.begin());
      for (const auto& [axis, symbol] : spec.axes) plan.output_symbols[k][axis] = symbol;
    }
  }

  std::vector<InputSpec> dynamic_inputs;  // --dynamic-input, flattened as --input is
  for (const auto& d : options_.dynamic_inputs)
    for (auto& leaf : flatten_input_spec(d)) dynamic_inputs.push_back(std::move(leaf));
  if (dynamic_inputs.empty()) other_sizes_ = other_dynamic_sizes(shapes, varied);
  varied = dynamic_run_shapes(dynamic_inputs, specs_, shapes, varied);  // --dynamic-input
  // What the export context decides (no autograd, arguments at their defaults) is folded before the
  // run, so the values of the branches it selects are recorded too.
  fold_static_shapes(model_.graph, TypeTable());
  run_all(types, shapes, varied, plan);
  // Folding on the recorded dtypes and shapes can inline more branches. Where the fold only moved
  // values the runs saw (a branch taken, inlined), the same observations are merged and marked again
  // on the new graph (sizes marked dynamic because a branch decided them are fixed once it is gone);
  // where it made new values (an unrolled loop's copies), the runs are repeated.
  for (int rerun = 0; rerun < 4; ++rerun) {
    const std::unordered_set<size_t> before = value_ids(model_.graph->block());
    if (!fold_static_shapes(model_.graph, types)) break;
    if (made_new_values(model_.graph->block(), before)) run_all(types, shapes, varied, plan);
    else derive(types, shapes, varied, plan);
  }
  // Output sizes a torch.export program records as fixed hold for every input it accepts, also where
  // the runs could not tell (a size computed from a number read from the data marks every dim).
  for (size_t k = 0; k < model_.graph->outputs().size() && k < model_.output_sizes.size(); ++k)
    if (TensorInfo* info = types.find(model_.graph->outputs()[k]))
      if (info->known_rank && !info->list_elements && info->dims.size() == model_.output_sizes[k].size())
        for (size_t d = 0; d < info->dims.size(); ++d)
          if (info->dims[d] < 0 && model_.output_sizes[k][d] >= 0) info->dims[d] = model_.output_sizes[k][d];
  if (std::getenv("T2O_DEBUG_TYPES")) {
    std::function<void(torch::jit::Block*, int)> dump = [&](torch::jit::Block* b, int depth) {
      for (auto* n : b->nodes()) {
        for (auto* o : n->outputs()) {
          const TensorInfo* info = types.find(o);
          std::cerr << std::string(depth * 2, ' ') << "%" << o->debugName() << " (" << n->kind().toQualString() << "): ";
          if (info) {
            std::cerr << "dtype " << info->dtype << " dims [";
            for (auto d : info->dims) std::cerr << d << ",";
            std::cerr << "]" << (info->known_rank ? "" : " rank?");
          }
          std::cerr << "\n";
        }
        for (auto* inner : n->blocks()) dump(inner, depth + 1);
      }
    };
    dump(model_.graph->block(), 0);
  }
  return plan;
}

void ExampleRun::run_all(TypeTable& types, const std::vector<std::vector<int64_t>>& shapes,
                         std::vector<std::vector<int64_t>>& varied, DynamicAxesPlan& plan) {
  observe(shapes, varied);
  derive(types, shapes, varied, plan);
}

void ExampleRun::observe(const std::vector<std::vector<int64_t>>& shapes, std::vector<std::vector<int64_t>>& varied) {
  std::string specs_text;
  for (const auto& s : specs_) specs_text += (specs_text.empty() ? "" : " ") + s.text;
  observed_ = Observations();
  // Made-up integer inputs are ones; where the model rejects them (embedding_bag's offsets must start
  // at 0, one_hot's class ids must be below the class count), zeros, a value every index op accepts.
  bool made_up_integers = false;
  for (size_t i = 0; i < specs_.size(); ++i) {
    auto st = *dtype_from_name(specs_[i].dtype);
    bool given = i < model_.example_values.size();
    made_up_integers |= !given && !options_.input_range && at::isIntegralType(st, false) && !at::isQIntType(st);
  }
  integer_fill_ = base_integer_fill_ = 1;
  try {
    try {
      observed_.first = run_once(shapes);
    } catch (const ExportError&) {
      throw;
    } catch (const std::exception&) {
      if (!made_up_integers) throw;
      std::exception_ptr with_ones = std::current_exception();  // the error reported if zeros fail too
      if (std::getenv("T2O_DEBUG")) std::cerr << "example run with integer inputs at 1 failed; trying 0" << std::endl;
      integer_fill_ = base_integer_fill_ = 0;
      try {
        observed_.first = run_once(shapes);
      } catch (const std::exception&) {
        integer_fill_ = base_integer_fill_ = 1;
        std::rethrow_exception(with_ones);
      }
    }
  } catch (const ExportError&) {
    throw;
  } catch (const std::exception& e) {
    // A made-up input read directly by an op that checks its values may be why: name it.
    std::string hint;
    auto names = input_names();
    for (size_t i = 0; i < specs_.size() && i < model_.graph->inputs().size() && hint.empty(); ++i) {
      bool given = i < model_.example_values.size() && model_.example_values[i].sizes().vec() == shapes[i];
      const auto* op = given ? nullptr : checks_values(model_.graph->inputs()[i]);
      if (!op) continue;
      auto st = *dtype_from_name(specs_[i].dtype);
      std::string made = at::isFloatingType(st) ? (reads_probabilities(model_.graph->inputs()[i]) ? "uniform in [0, 1)"
                                                                                                   : "random normal")
                         : st == at::kBool      ? "false"
                         : options_.input_range ? "in --input-range"
                                                : "ones, then zeros";
      hint = "; input '" + (i < names.size() ? names[i] : std::to_string(i)) + "' was made up (" + made +
             ") and is read by " + op->kind().toQualString() + ": give its values with --example-inputs DIR";
    }
    throw ExportError("running the model on example inputs (--input " + specs_text + ") failed: " +
                      error_reason(e.what()) + hint, e.what());
  }
  if (varied != shapes) {
    observed_.second = run_second(shapes, varied);
    if (!observed_.second) run_partial(shapes, varied);
    if (varied != shapes) observed_.third = run_third(shapes, varied);
  }
  observed_.grid_probe.reset();
  auto quantized = [](const InputSpec& s) { return at::isQIntType(*dtype_from_name(s.dtype)); };
  if (!options_.dequantized_io && std::any_of(specs_.begin(), specs_.end(), quantized)) {
    try {
      observed_.grid_probe = run_on(shapes, /*meta=*/false, /*probe_grid=*/true);
    } catch (const std::exception& e) {
      throw ExportError("running the model with its quantized inputs on another grid (scale, zero point) failed: " +
                            error_reason(e.what()),
                        e.what());
    }
  }
  observed_.value_dims_known = run_value(shapes);
}

void ExampleRun::derive(TypeTable& types, const std::vector<std::vector<int64_t>>& shapes,
                        const std::vector<std::vector<int64_t>>& varied, DynamicAxesPlan& plan) {
  types = observed_.first;
  if (observed_.second) merge_second_run(types, *observed_.second, shapes, varied, plan);
  if (observed_.third) merge_value_run(types, *observed_.third);  // dims that differ are dynamic, as there
  for (const auto& [sizes, partial] : observed_.partial) {  // runs that varied some dynamic axes only
    merge_value_run(types, partial);
    for (size_t i = 0; i < specs_.size(); ++i)
      for (const auto& [axis, symbol] : plan.input_symbols[i])
        if (sizes[i][(size_t)axis] != shapes[i][(size_t)axis])
          plan.symbol_of_sizes.emplace(std::make_pair(shapes[i][(size_t)axis], sizes[i][(size_t)axis]), symbol);
  }
  if (!observed_.second && !observed_.partial.empty()) plan.second_run_shapes = varied;
  // Dynamic axes no run could vary: the input's dim is dynamic, and so is every size computed from it.
  std::vector<const torch::jit::Value*> varying_inputs;
  for (const auto& [i, axis] : observed_.unvaried) {
    const torch::jit::Value* in = model_.graph->inputs()[i];
    if (TensorInfo* info = types.find(in); info && info->known_rank && axis < info->dims.size()) info->dims[axis] = -1;
    if (std::find(varying_inputs.begin(), varying_inputs.end(), in) == varying_inputs.end()) varying_inputs.push_back(in);
  }
  if (observed_.grid_probe)
    for (auto& [id, info] : types.entries()) {
      if (!info.quantized || info.q_scale <= 0) continue;
      auto probe = observed_.grid_probe->entries().find(id);
      if (probe == observed_.grid_probe->entries().end()) continue;
      info.q_probed = true;
      info.q_scale_probe = probe->second.q_scale;
      info.q_zero_point_probe = probe->second.q_zero_point;
    }
  if (observed_.value_run) merge_value_run(types, *observed_.value_run);
  // Before anything folds a size: values the runs did not reach get types, and sizes that depend
  // on the branch taken or the number of iterations are marked as varying.
  propagate_unobserved(model_.graph->block(), types);
  if (varying_inputs.empty()) {
    mark_data_dependent_sizes(model_.graph->block(), types, !observed_.value_dims_known);
  } else {
    // The dims marked only because of those inputs are assumed dynamic (TensorInfo::dims_assumed).
    TypeTable seen = types;
    mark_data_dependent_sizes(model_.graph->block(), seen, !observed_.value_dims_known);
    mark_data_dependent_sizes(model_.graph->block(), types, !observed_.value_dims_known, varying_inputs);
    for (auto& [id, info] : types.entries()) {
      auto it = seen.entries().find(id);
      info.dims_assumed = it == seen.entries().end() || it->second.dims != info.dims;
    }
  }
}

std::optional<TypeTable> ExampleRun::run_second(const std::vector<std::vector<int64_t>>& shapes,
                                                std::vector<std::vector<int64_t>>& varied) {
  const auto in_names = input_names();
  auto show = [&](const std::vector<std::vector<int64_t>>& sizes) {
    std::string shown;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == shapes[i]) continue;
      shown += (shown.empty() ? "" : ", ") + in_names[i] + "[";
      for (size_t d = 0; d < sizes[i].size(); ++d) shown += (d ? "," : "") + std::to_string(sizes[i][d]);
      shown += "]";
    }
    return shown;
  };

  // Second run with the dynamic axes at other sizes: dims that change are dynamic (-1). Models with
  // size constraints fail at some sizes: try the others before giving up.
  std::vector<std::vector<std::vector<int64_t>>> tries{varied};
  for (const auto& alt : other_sizes_)
    if (std::find(tries.begin(), tries.end(), alt) == tries.end()) tries.push_back(alt);
  std::string tried, first_error, first_details;
  for (const auto& sizes : tries) {
    try {
      TypeTable other = run_once(sizes);
      varied = sizes;
      return other;
    } catch (const std::exception& e) {
      if (first_error.empty()) {
        first_error = error_reason(e.what());
        first_details = e.what();
      }
      tried += (tried.empty() ? "" : "; ") + show(sizes);
    }
  }
  second_failure_ = Failure{tried, first_error, first_details};
  return std::nullopt;
}

void ExampleRun::merge_second_run(TypeTable& types, const TypeTable& other,
                                  const std::vector<std::vector<int64_t>>& shapes,
                                  const std::vector<std::vector<int64_t>>& varied, DynamicAxesPlan& plan) {
  for (auto& [id, info] : types.entries()) {
    auto it = other.entries().find(id);
    if (it != other.entries().end()) merge_item_runs(info, it->second);
    if (it == other.entries().end() || !it->second.known_rank || it->second.dims.size() != info.dims.size()) continue;
    info.alt_dims = it->second.dims;
    info.run_dims = info.dims;
    for (size_t d = 0; d < info.dims.size(); ++d)
      if (info.alt_dims[d] != info.dims[d]) info.dims[d] = -1;
  }
  plan.second_run_shapes = varied;
  // The symbol of each dynamic input dim, keyed by its (first, second) sizes, to name output dims.
  for (size_t i = 0; i < specs_.size(); ++i)
    for (const auto& [axis, symbol] : plan.input_symbols[i])
      plan.symbol_of_sizes.emplace(std::make_pair(shapes[i][(size_t)axis], varied[i][(size_t)axis]), symbol);
}

void ExampleRun::merge_value_run(TypeTable& types, const TypeTable& other) {
  for (auto& [id, info] : types.entries()) {
    auto it = other.entries().find(id);
    if (it != other.entries().end()) merge_item_runs(info, it->second);
    if (it == other.entries().end() || !it->second.known_rank || it->second.dims.size() != info.dims.size()) continue;
    for (size_t d = 0; d < info.dims.size(); ++d)
      if (it->second.dims[d] != info.dims[d]) info.dims[d] = -1;
  }
}

}  // namespace t2o::core
