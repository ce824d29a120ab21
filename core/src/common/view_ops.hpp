// The one definition of "which ops are views": used by the in-place view pass (which rewrites
// writes through views it can write back exactly) and by the walk (which refuses writes it cannot).
#ifndef TORCH2ONNX_CORE_VIEW_OPS_HPP
#define TORCH2ONNX_CORE_VIEW_OPS_HPP

#include <torch/script.h>

namespace t2o::core {

// Whether output 0 of `n` may share storage with its input 0: its schema says the result aliases
// the first argument (aten::slice, view, transpose, expand, unbind, split, detach, alias, ...), or
// it takes an element out of a container (prim::ListUnpack, aten::__getitem__).
inline bool is_view_of_input(const torch::jit::Node* n) {
  if (n->inputs().empty() || n->outputs().empty()) return false;
  if (n->kind() == c10::prim::ListUnpack || n->kind() == c10::aten::__getitem__) return true;
  auto schema = n->maybeSchema();
  if (!schema || schema->arguments().empty() || schema->returns().empty()) return false;
  const auto* in = schema->arguments()[0].alias_info();
  const auto* out = schema->returns()[0].alias_info();
  if (!in || !out || in->isWrite()) return false;
  for (const auto& set : out->beforeSets())
    if (in->beforeSets().count(set)) return true;
  // Lists of views (unbind, split, chunk): the elements alias the input.
  for (const auto& contained : out->containedTypes())
    for (const auto& set : contained.beforeSets())
      if (in->beforeSets().count(set)) return true;
  return false;
}

// The views whose write-back is exact (slice, select, narrow with a constant start, shape-only
// views and axis swaps): the in-place view pass rewrites writes through these, and only these.
bool is_exact_view(const torch::jit::Node* n);  // inplace_views.cpp

}  // namespace t2o::core

#endif
