// Types for the values the example runs never reached (propagate_unobserved, example_run.hpp): a
// branch not taken, a loop that ran no iteration. Each such node runs alone on meta tensors shaped as
// its inputs were recorded (on CPU zeros where an op has no meta kernel). Split from example_run.cpp.
#include "run/example_run.hpp"

#include "torch2onnx/core/dtype_table.hpp"
#include "torch2onnx/core/error_reason.hpp"

#include <cstdlib>
#include <iostream>
#include <unordered_map>

namespace t2o::core {

namespace {

// Values made up while typing unreached nodes: meta tensors, lists of them, numbers.
using Fakes = std::unordered_map<const torch::jit::Value*, c10::IValue>;

std::optional<c10::IValue> value_of(const torch::jit::Value* v, const TypeTable& types, const Fakes& fakes,
                                    bool& dynamic, bool meta) {
  auto fake = fakes.find(v);
  if (fake != fakes.end()) return fake->second;
  if (auto iv = torch::jit::toIValue(v)) return *iv;
  // A run-time number (an int/float/bool argument given as a 0-d input, a size): any value types
  // the node, whose sizes may then depend on it, so none of them is known to be fixed.
  switch (v->type()->kind()) {
    case c10::TypeKind::IntType: dynamic = true; return c10::IValue((int64_t)1);
    case c10::TypeKind::FloatType: dynamic = true; return c10::IValue(1.0);
    case c10::TypeKind::BoolType: dynamic = true; return c10::IValue(false);
    case c10::TypeKind::TensorType: break;
    default: return std::nullopt;  // a run-time list
  }
  const TensorInfo* info = types.find(v);
  if (!info || !info->known_rank || !info->dtype || info->list_elements) return std::nullopt;
  std::vector<int64_t> dims = info->dims;
  for (auto& d : dims)
    if (d < 0) { d = 2; dynamic = true; }
  auto st = torch_dtype(info->dtype);
  if (!st) return std::nullopt;
  // Ops without a meta kernel run on the CPU, on zeros (valid as indices, harmless as values).
  if (!meta) return c10::IValue(at::zeros(dims, at::TensorOptions().dtype(*st)));
  return c10::IValue(at::empty(dims, at::TensorOptions().dtype(*st).device(at::kMeta)));
}

// Runs one node alone on meta tensors shaped as its inputs were recorded; records its outputs.
void run_alone(torch::jit::Node* node, TypeTable& types, Fakes& fakes, bool meta = true) {
  torch::jit::Stack stack;
  bool dynamic = false;
  const bool writes = writes_an_input(node);
  for (auto* in : node->inputs()) {
    auto iv = value_of(in, types, fakes, dynamic, meta);
    if (!iv) return;
    // The model's own tensors (constants) are never written, here as in the runs above.
    if (writes && iv->isTensor() && in->node()->kind() == c10::prim::Constant) iv = c10::IValue(iv->toTensor().clone());
    // A fake made on the meta device cannot feed a CPU run.
    if (!meta && iv->isTensor() && iv->toTensor().is_meta()) return;
    stack.push_back(std::move(*iv));
  }
  if (node->kind() == c10::prim::ListConstruct) {
    auto list_type = node->output()->type()->cast<c10::ListType>();
    if (!list_type) return;
    c10::impl::GenericList list(list_type->getElementType());
    for (auto& iv : stack) list.push_back(iv);
    stack.assign(1, c10::IValue(list));
  } else {
    auto op = node->maybeOperator();
    if (!op) return;
    try {
      op->getOperation(node)(stack);
    } catch (const std::exception& e) {
      if (meta) return run_alone(node, types, fakes, false);
      if (std::getenv("T2O_DEBUG"))
        std::cerr << "typing " << node->kind().toQualString() << " alone failed: " << error_reason(e.what()) << std::endl;
      return;
    }
  }
  if (stack.size() != node->outputs().size()) return;
  for (size_t k = 0; k < stack.size(); ++k) {
    fakes[node->output(k)] = stack[k];
    if (!stack[k].isTensor() || types.has(node->output(k))) continue;
    const auto& t = stack[k].toTensor();
    TensorInfo info;
    info.dtype = onnx_dtype(t.scalar_type()).value_or(0);
    info.dims = t.sizes().vec();
    // A size computed from a dynamic dim is not known to be fixed.
    if (dynamic) std::fill(info.dims.begin(), info.dims.end(), -1);
    info.known_rank = true;
    types.set(node->output(k), info);
  }
}

void adopt(TypeTable& types, torch::jit::Value* to, torch::jit::Value* from) {
  if (types.has(to)) return;
  if (const TensorInfo* info = types.find(from)) types.set(to, *info);
}

void propagate(torch::jit::Block* block, TypeTable& types, Fakes& fakes) {
  for (auto* node : block->nodes()) {
    if (node->kind() == c10::prim::Constant) continue;
    if (node->kind() == c10::prim::Loop) {
      auto* body = node->blocks()[0];
      // Carried value k: loop input k+2, body parameter k+1, body output k+1, loop output k.
      for (size_t k = 0; k < node->outputs().size(); ++k) adopt(types, body->inputs()[k + 1], node->input(k + 2));
      propagate(body, types, fakes);
      // A carried list that starts empty (no run saw an element of it) has the type the body appends.
      for (size_t k = 0; k < node->outputs().size(); ++k) {
        adopt(types, node->output(k), body->outputs()[k + 1]);
        adopt(types, body->inputs()[k + 1], body->outputs()[k + 1]);
      }
      continue;
    }
    if (node->kind() == c10::prim::If) {
      for (auto* b : node->blocks()) propagate(b, types, fakes);
      for (size_t k = 0; k < node->outputs().size(); ++k)
        for (auto* b : node->blocks()) adopt(types, node->output(k), b->outputs()[k]);
      // What an early return leaves unset (prim::Uninitialized) takes the If output's type, which the
      // other branch gives: its ONNX placeholder must have that element type (ONNX If's branches
      // agree). A tensor's placeholder is never read: 1 for each dim that varies.
      for (size_t k = 0; k < node->outputs().size(); ++k)
        for (auto* b : node->blocks()) {
          auto* unset = b->outputs()[k];
          if (unset->node()->kind() != c10::prim::Uninitialized || types.has(unset)) continue;
          const TensorInfo* info = types.find(node->output(k));
          if (!info) continue;
          TensorInfo placeholder = *info;
          if (!placeholder.list_elements)
            for (auto& d : placeholder.dims) d = d < 0 ? 1 : d;
          types.set(unset, placeholder);
        }
      continue;
    }
    // An append no run reached: a list of what it appends (the list input itself may be an empty
    // one, typed by nothing).
    if (node->kind() == c10::Symbol::fromQualString("t2o::list_append") && !types.has(node->output())) {
      if (const TensorInfo* el = types.find(node->input(1)); el && !el->list_elements) {
        TensorInfo info = *el;
        info.list_elements = true;
        info.item_dtypes.clear(), info.item_dims.clear();
        info.items_vary = true;
        types.set(node->output(), info);
      }
      continue;
    }
    bool missing = false;
    for (auto* out : node->outputs()) {
      auto kind = out->type()->kind();
      missing |= (kind == c10::TypeKind::TensorType && !types.has(out)) || kind == c10::TypeKind::ListType;
    }
    if (missing) run_alone(node, types, fakes);
  }
}

}  // namespace

void propagate_unobserved(torch::jit::Block* block, TypeTable& types) {
  Fakes fakes;
  propagate(block, types, fakes);
}

}  // namespace t2o::core
