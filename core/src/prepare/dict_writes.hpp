// What the converter says of a dict write that fold_dict_writes (passes.hpp, pass 3) left in the
// graph: no pack converts aten::_set_item & co. on a dict, and this says why.
#pragma once

#include <torch/csrc/jit/ir/ir.h>

#include <memory>
#include <string>

namespace t2o::core {

// Why the dict write `node` (d[k] = v in a branch or loop, under a run-time key, d.pop(), ...)
// cannot be exported, as one clause for the refusal; "" when `node` does not write a dict.
std::string dict_write_refusal(const torch::jit::Node* node);

// fold_dict_writes again where dict writes are left (none: nothing done), after the static-shape
// fold unrolled a loop or decided a branch that held them (then they are in the dict's block).
// Returns whether a dict was rewritten.
bool refold_dict_writes(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace t2o::core
