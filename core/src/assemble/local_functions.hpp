// --export-modules-as-functions (torch.onnx's export_modules_as_functions): the calls of chosen module
// types become calls of ONNX local functions (FunctionProto in ModelProto.functions), as torch.onnx's
// function extraction does: nodes grouped by the module call that made them (here, the inlined call
// stack of their TorchScript node; a program's nodes get one from `nn_module_stack`), innermost calls
// first, one function per module type and body (variants of a type named Type.1, Type.2, ...), node
// attributes that differ between the calls of one function passed as function attributes, every
// other value (weights included) as inputs.
#ifndef TORCH2ONNX_CORE_LOCAL_FUNCTIONS_HPP
#define TORCH2ONNX_CORE_LOCAL_FUNCTIONS_HPP

#include "convert/graph_builder.hpp"

#include <onnx/onnx_pb.h>

namespace t2o::core {

// Rewrites model's main graph in place. `graph` gives each node's origin (its TorchScript node must
// still be alive) and unique node names; root_type is the qualified class name of the exported module.
// Throws ExportError below opset 15 and for a type name no module of the model has (the message
// lists the model's module types).
void extract_local_functions(onnx::ModelProto& model, GraphBuilder& graph, const ExportOptions& options,
                             const std::string& root_type);

// After ONNX's shape inference: a subgraph value in a function body typed without a dtype (a branch
// no example run took; inference completes such types in the main graph, not in function bodies)
// goes untyped, as subgraphs allow: ONNX Runtime refuses a tensor type of dtype 0 ("Invalid tensor
// data type 0") and infers an untyped one itself.
void untype_partial_function_values(onnx::ModelProto& model);

}  // namespace t2o::core

#endif
