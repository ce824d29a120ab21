// Stage 4 of a conversion: the walk. Hands every node of a block, in order, to the symbolic its
// resolution names; re-entrant, so a symbolic converting a block (prim::If, prim::Loop) walks it
// through the same code as the top level. In check mode it keeps going after failures.
#ifndef TORCH2ONNX_CORE_WALK_HPP
#define TORCH2ONNX_CORE_WALK_HPP

#include "convert/session.hpp"

namespace t2o::core {

// Binds the graph inputs, refuses up front when ops have no symbolic (listing all of them), then
// converts the top-level block. Throws ExportError (NodeError for a symbolic's failure).
void convert_graph(Session& session);

// Converts each node of `block` into the innermost open graph; the block's parameters are bound.
void convert_block(Session& session, torch::jit::Block* block);

// Check mode without example inputs: records the nodes no symbolic is registered for.
void scan_missing(Session& session);

}  // namespace t2o::core

#endif
