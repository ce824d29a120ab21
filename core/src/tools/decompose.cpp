// torch.onnx.ops calls -> ATen ops in a TorchScript model (see torch2onnx/core/decompose.hpp). The
// decompositions are the TorchScript functions of python/torch2onnx_ops/_aten_decompositions.py, the
// same text the Python module uses (embedded at build time), compiled by libtorch and inlined at
// each call site.
#include "torch2onnx/core/decompose.hpp"
#include "torch2onnx/core/exporter.hpp"

#include "aten_decompositions_source.hpp"  // generated: kAtenDecompositionsSource
#include "load/archive_bounds.hpp"
#include "load/kernel_libraries.hpp"
#include "torch2onnx/core/error_reason.hpp"

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/jit.h>
#include <torch/script.h>

#include <filesystem>
#include <sstream>

namespace t2o::core {

namespace {

// The embedded source without its Python imports (libtorch's TorchScript compiler has none).
std::string torchscript_source() {
  std::istringstream in(kAtenDecompositionsSource);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("import ", 0) != 0 && line.rfind("from ", 0) != 0) out += line + "\n";
  return out;
}

std::shared_ptr<torch::jit::Graph> inlined_graph(torch::jit::CompilationUnit& cu, const std::string& name) {
  auto graph = toGraphFunction(cu.get_function(name)).graph()->copy();
  torch::jit::Inline(*graph);
  return graph;
}

struct Rewriter {
  std::shared_ptr<torch::jit::Graph> rotary, attention;
  DecomposeStats stats;
  const c10::Symbol rotary_kind = c10::Symbol::fromQualString("onnx::RotaryEmbedding");
  const c10::Symbol attention_kind = c10::Symbol::fromQualString("onnx::Attention");
  const c10::Symbol symbolic_ns = c10::Symbol::fromQualString("namespaces::onnx_symbolic");

  void block(torch::jit::Graph& graph, torch::jit::Block* b) {
    for (auto it = b->nodes().begin(); it != b->nodes().end();) {
      torch::jit::Node* node = *it++;
      for (auto* sub : node->blocks()) block(graph, sub);
      const bool is_rotary = node->kind() == rotary_kind, is_attention = node->kind() == attention_kind;
      if (node->kind().ns() == symbolic_ns) ++stats.symbolic_left;
      if (!is_rotary && !is_attention) continue;
      auto& decomposition = is_rotary ? *rotary : *attention;
      if (node->inputs().size() != decomposition.inputs().size())
        throw ExportError(std::string(node->kind().toQualString()) + ": " + std::to_string(node->inputs().size()) +
                          " arguments, expected " + std::to_string(decomposition.inputs().size()) +
                          " (the opset23 overload)");
      torch::jit::WithInsertPoint guard(node);
      auto outputs = torch::jit::insertGraph(graph, decomposition, node->inputs());
      if (is_rotary) {
        node->output()->replaceAllUsesWith(outputs.at(0));
        ++stats.rotary_embedding;
      } else {
        auto* unpack = graph.insertNode(graph.createTupleUnpack(outputs.at(0)));
        for (size_t i = 0; i < node->outputs().size(); ++i) node->output(i)->replaceAllUsesWith(unpack->output(i));
        ++stats.attention;
      }
      node->destroy();
    }
  }
};

}  // namespace

DecomposeStats decompose_onnx_ops(const std::string& model_in, const std::string& model_out,
                                  const std::vector<std::string>& libraries, bool default_libraries,
                                  const std::function<void(const std::string&)>& warn) {
  namespace fs = std::filesystem;
  load_kernel_libraries(libraries, default_libraries, warn);
  if (!fs::exists(model_in)) throw ExportError(model_in + ": no such file");
  check_archive_bounds(model_in);  // what the archive claims, before libtorch allocates it
  torch::jit::Module module;
  try {
    module = torch::jit::load(model_in);
  } catch (const std::exception& e) {
    throw ExportError(model_in + ": cannot load: " + error_reason(e.what()), e.what());
  }
  Rewriter rewriter;
  try {
    auto cu = torch::jit::compile(torchscript_source());
    rewriter.rotary = inlined_graph(*cu, "rotary_embedding_23");
    rewriter.attention = inlined_graph(*cu, "attention_23");
  } catch (const std::exception& e) {
    std::string what = e.what();
    for (auto& c : what) if (c == '\n') c = ' ';
    throw ExportError("internal error: the ATen decompositions do not compile: " + what);
  }
  for (const auto& submodule : module.modules())
    for (const auto& method : submodule.get_methods()) {
      auto graph = method.graph();
      rewriter.block(*graph, graph->block());
    }
  const fs::path out(model_out);
  if (!out.parent_path().empty() && !fs::is_directory(out.parent_path()))
    throw ExportError(model_out + ": directory " + out.parent_path().string() + " does not exist");
  const fs::path tmp = out.string() + ".tmp";
  try {
    module.save(tmp.string());
    fs::rename(tmp, out);
  } catch (const std::exception& e) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    std::string what = e.what();
    throw ExportError(model_out + ": cannot write: " + what.substr(0, what.find('\n')));
  }
  return rewriter.stats;
}

}  // namespace t2o::core
