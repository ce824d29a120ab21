// Custom TorchScript ops declared by packs: see torch2onnx/core/custom_ops.hpp for the contract.
#include "torch2onnx/core/custom_ops.hpp"

#include "load/model_loader.hpp"

#include <torch/csrc/jit/frontend/function_schema_parser.h>
#include <torch/csrc/jit/runtime/custom_operator.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <filesystem>
#include <mutex>
#include <set>

namespace t2o::core {

namespace {

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

thread_local int example_runs = 0;

// Parses a schema; throws std::runtime_error with a one-line reason.
c10::FunctionSchema parse(const std::string& text) {
  c10::FunctionSchema schema = [&] {
    try {
      return torch::jit::parseSchema(text);
    } catch (const std::exception& e) {
      throw std::runtime_error(one_line(error_reason(e.what())));
    }
  }();
  const std::string& name = schema.name();
  auto sep = name.find("::");
  if (sep == std::string::npos || sep == 0 || sep + 2 >= name.size())
    throw std::runtime_error("the op name '" + name + "' has no namespace (expected e.g. myvendor::" + name + ")");
  if (schema.is_vararg() || schema.is_varret()) throw std::runtime_error("variadic schemas (...) cannot be declared");
  return schema;
}

// The placeholder kernel: each Tensor output = zeros shaped and typed like the first Tensor argument.
torch::jit::Operation placeholder_kernel(const c10::FunctionSchema& schema, const std::string& pack) {
  const size_t num_args = schema.arguments().size();
  std::vector<bool> tensor_returns;
  for (const auto& r : schema.returns()) tensor_returns.push_back(r.type()->kind() == c10::TypeKind::TensorType);
  const std::string name = schema.name() + (schema.overload_name().empty() ? "" : "." + schema.overload_name());
  return torch::jit::Operation([num_args, tensor_returns, name, pack](torch::jit::Stack& stack) {
    if (example_runs == 0)
      throw std::runtime_error("no kernel for " + name + ": it is converted by pack " + pack +
                               ", not run (outside the example run)");
    c10::optional<at::Tensor> first;
    for (const auto& v : torch::jit::last(stack, num_args))
      if (v.isTensor()) {
        first = v.toTensor();
        break;
      }
    torch::jit::drop(stack, num_args);
    for (bool is_tensor : tensor_returns) {
      if (!is_tensor || !first)
        throw std::runtime_error("no kernel for " + name + " (declared by pack " + pack +
                                 "): without its kernel an op's outputs can only be Tensors shaped like its first "
                                 "Tensor argument");
      stack.emplace_back(at::zeros_like(*first));
    }
  });
}

}  // namespace

CustomOpExampleRun::CustomOpExampleRun() { ++example_runs; }
CustomOpExampleRun::~CustomOpExampleRun() { --example_runs; }
CustomOpKernelsOff::CustomOpKernelsOff() : saved_(example_runs) { example_runs = 0; }
CustomOpKernelsOff::~CustomOpKernelsOff() { example_runs = saved_; }
bool custom_op_kernels_on() { return example_runs > 0; }

std::string check_custom_op_schema(const std::string& schema) {
  try {
    parse(schema);
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

void declare_custom_ops(const t2o::registry::Registry& registry,
                        const std::function<void(const std::string&)>& warn) {
  static std::mutex mutex;
  static std::set<std::string> declared;  // canonical "name.overload" declared by this process
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto& d : registry.schemas()) {
    const auto& plugins = registry.plugins();
    const std::string file = d.plugin_index < plugins.size() ? plugins[d.plugin_index].path : std::string("?");
    const std::string pack = d.plugin_index < plugins.size() ? plugins[d.plugin_index].name : std::string("?");
    try {
      c10::FunctionSchema schema = parse(d.schema);
      c10::OperatorName op_name(schema.name(), schema.overload_name());
      const std::string key = schema.name() + "." + schema.overload_name();
      if (declared.count(key)) continue;
      if (torch::jit::findOperatorFor(op_name)) continue;  // built in, or its real kernel is loaded
      torch::jit::RegisterOperators reg(
          {torch::jit::Operator(d.schema, placeholder_kernel(schema, pack), c10::AliasAnalysisKind::FROM_SCHEMA)});
      declared.insert(key);
    } catch (const std::exception& e) {
      if (warn)
        warn("plugin " + file + ": custom op schema '" + one_line(d.schema) + "' not declared: " +
             one_line(error_reason(e.what())));
    }
  }
}

}  // namespace t2o::core
