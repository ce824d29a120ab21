// Tracing of onnx_symbolic::_symbolic / _symbolic_multi_out. libtorch 1.13's generic tracer (the
// fallback that records custom ops) cannot record a Tensor?[] argument ("unsupported input list type:
// Tensor?") nor str[] / int[][]; these kernels record the node themselves, argument by argument, then
// run the CPU kernel with tracing off and record the outputs.
#include "ops_common.hpp"

#include <ATen/TracerMode.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/ir/ir.h>

namespace t2o_ops {

void trace_symbolic_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  namespace tracer = torch::jit::tracer;
  const auto& state = tracer::getTracingState();
  if (!state) {
    at::tracer::impl::NoTracerDispatchMode no_tracer;
    op.callBoxed(stack);
    return;
  }
  const c10::FunctionSchema& schema = op.schema();
  const size_t num_args = schema.arguments().size();
  torch::jit::Graph& graph = *state->graph;
  torch::jit::Node* node = graph.create(c10::Symbol::fromQualString(schema.name()), 0);
  tracer::recordSourceLocation(node);
  auto args = torch::jit::last(*stack, num_args);
  for (size_t i = 0; i < num_args; ++i) {
    const c10::Argument& arg = schema.arguments()[i];
    const char* name = arg.name().c_str();
    const c10::IValue& v = args[i];
    const auto list_type = arg.type()->cast<c10::ListType>();
    if (list_type && list_type->getElementType()->cast<c10::OptionalType>()) {
      tracer::addInputs(node, name, v.to<c10::List<c10::optional<at::Tensor>>>());
    } else if (v.isNone()) {
      node->addInput(graph.insertNode(graph.createNone())->output());
    } else if (v.isString()) {
      tracer::addInputs(node, name, c10::string_view(v.toStringRef()));
    } else if (v.isBool()) {
      tracer::addInputs(node, name, v.toBool());
    } else if (v.isInt()) {
      tracer::addInputs(node, name, v.toInt());
    } else if (v.isDouble()) {
      tracer::addInputs(node, name, v.toDouble());
    } else if (v.isIntList()) {
      const std::vector<int64_t> ints = v.toIntVector();
      tracer::addInputs(node, name, c10::ArrayRef<int64_t>(ints));
    } else if (v.isDoubleList()) {
      const std::vector<double> doubles = v.toDoubleVector();
      tracer::addInputs(node, name, c10::ArrayRef<double>(doubles));
    } else if (v.isList() && list_type) {
      // str[] and int[][]: a list of constants.
      std::vector<torch::jit::Value*> items;
      for (const auto& item : v.toListRef()) items.push_back(graph.insertConstant(item));
      node->addInput(graph.insertNode(graph.createList(list_type->getElementType(), items))->output());
    } else {
      TORCH_CHECK(false, schema.name(), ": cannot trace argument '", arg.name(), "' (", v.tagKind(), ")");
    }
  }
  graph.insertNode(node);
  {
    at::tracer::impl::NoTracerDispatchMode no_tracer;
    op.callBoxed(stack);
  }
  const c10::IValue& result = stack->back();
  if (result.isTensor())
    tracer::addOutput(node, result.toTensor());
  else
    tracer::addOutput(node, result.toTensorList());
}

}  // namespace t2o_ops
