#include "model_loader.hpp"

#include "archive_scan.hpp"
#include "lazy_weights.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/lower_tuples.h>
#include <torch/csrc/jit/passes/remove_mutation.h>

#include <fstream>
#include <sys/stat.h>

namespace t2o::core {

void remove_assertions(const std::shared_ptr<torch::jit::Graph>& graph);  // static_shapes.cpp

namespace {

// A traced Python number (int_tensor + 1.5) is recorded as a 0-d tensor constant that was a
// "wrapped number" (it does not raise the tensor's dtype within its category); the archive keeps
// no such flag, so libtorch's interpreter would compute float64. PyTorch's own graph executor
// turns these constants back into numbers for add/sub/mul/div (the ops whose Python bindings wrap
// numbers), which is what running the loaded model in PyTorch gives: do the same, nested blocks
// included, so the example run and the packs see a Python number. Runs on every method before
// freezing.
void unwrap_number_constants(torch::jit::Block* block) {
  static const char* const schemas[] = {
      "aten::add(Tensor self, Tensor other, *, Scalar alpha) -> Tensor",
      "aten::sub(Tensor self, Tensor other, *, Scalar alpha) -> Tensor",
      "aten::mul(Tensor self, Tensor other) -> Tensor",
      "aten::div(Tensor self, Tensor other) -> Tensor",
  };
  for (auto it = block->nodes().begin(); it != block->nodes().end(); ++it) {
    torch::jit::Node* node = *it;
    for (auto* b : node->blocks()) unwrap_number_constants(b);
    bool matches = false;
    for (const char* schema : schemas) matches = matches || node->matches(schema);
    if (!matches) continue;
    auto other = node->get<at::Tensor>(c10::Symbol::attr("other"));
    if (!other || other->dim() != 0 || !other->device().is_cpu()) continue;
    auto* graph = node->owningGraph();
    torch::jit::WithInsertPoint here(node);
    std::vector<torch::jit::Value*> inputs = node->inputs().vec();
    inputs[1] = graph->insertConstant(other->item());
    auto* replacement = graph->insertNode(graph->create(node->kind(), inputs));
    replacement->copyMetadata(node);
    replacement->output()->copyMetadata(node->output());
    node->output()->replaceAllUsesWith(replacement->output());
  }
}

}  // namespace

std::string first_line(const std::string& message) {
  std::string line;
  size_t start = 0;
  // libtorch messages may open with an empty line or a backtrace header; take the first line
  // that says something.
  while (start < message.size()) {
    size_t end = message.find('\n', start);
    line = message.substr(start, end == std::string::npos ? std::string::npos : end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty() && line.rfind("Exception raised from", 0) != 0) break;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return line;
}

torch::jit::Module load_torchscript(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw ExportError(path + ": no such file");
  if (S_ISDIR(st.st_mode)) throw ExportError(path + ": is a directory, not a TorchScript file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ExportError(path + ": cannot be opened for reading");
  char magic[4] = {0, 0, 0, 0};
  in.read(magic, 4);
  if (in.gcount() < 4 || magic[0] != 'P' || magic[1] != 'K') {
    if (in.gcount() >= 1 && (unsigned char)magic[0] == 0x80)
      throw ExportError(path + ": a pickle saved by torch.save (legacy format), not TorchScript; save the module with torch.jit.script(m).save() or torch.jit.trace(m, x).save()");
    throw ExportError(path + ": not a TorchScript archive (not a zip file)");
  }
  in.close();

  // Look inside first, to tell a torch.save()d object (state_dict) from a TorchScript module.
  try {
    caffe2::serialize::PyTorchStreamReader reader(path);
    bool has_code = false, has_constants = reader.hasRecord("constants.pkl");
    for (const auto& r : reader.getAllRecords())
      if (r.rfind("code/", 0) == 0) { has_code = true; break; }
    if (!has_code || !has_constants)
      throw ExportError(path + ": saved with torch.save (e.g. a state_dict), not TorchScript; save the module with torch.jit.script(m).save() or torch.jit.trace(m, x).save()");
  } catch (const ExportError&) {
    throw;
  } catch (const std::exception& e) {
    throw ExportError(path + ": corrupt or truncated TorchScript archive: " + first_line(e.what()));
  }

  try {
    // (The archive keeps no "wrapped number" flag on traced Python numbers at all: prepare()
    // restores them, see unwrap_number_constants.)
    if (!lazy_weights::enabled()) return torch::jit::load(path);
    auto reader = std::make_shared<lazy_weights::Reader>(path);
    lazy_weights::LoadScope large_records_stay_in_the_file;
    return torch::jit::load(reader);
  } catch (const std::exception& e) {
    // The loader stops at the first op it doesn't know: name every unknown custom op at once.
    std::vector<CustomOpUse> unknown;
    try {
      unknown = unknown_custom_ops(path);
    } catch (const std::exception&) {
    }
    if (!unknown.empty()) throw UnknownCustomOpsError(path, std::move(unknown));
    throw ExportError(path + ": cannot load TorchScript: " + first_line(e.what()));
  }
}

PreparedModel prepare(torch::jit::Module module, const std::string& path) {
  PreparedModel out;
  if (!module.find_method("forward")) throw ExportError(path + ": the module has no forward() method");
  try {
    module.eval();
    // Before freezing: its constant propagation would fold them as tensors.
    for (const auto& submodule : module.modules())
      for (const auto& method : submodule.get_methods()) unwrap_number_constants(method.graph()->block());
    // optimize_numerics=false: keep the model's own arithmetic (no conv/bn folding behind the user's back).
    out.module = torch::jit::freeze(module, c10::nullopt, /*optimize_numerics=*/false);
  } catch (const std::exception& e) {
    throw ExportError(path + ": freezing the module failed: " + first_line(e.what()));
  }
  auto method = out.module.get_method("forward");
  const auto& schema = method.function().getSchema();
  for (size_t i = 1; i < schema.arguments().size(); ++i) {
    out.argument_names.push_back(schema.arguments()[i].name());
    out.argument_types.push_back(schema.arguments()[i].type());
  }
  auto graph = method.graph()->copy();
  try {
    torch::jit::Inline(*graph);
    torch::jit::RemoveListMutation(graph);
    torch::jit::RemoveTensorMutation(graph);
    // Full constant propagation: also resolves `if x is None` branches on arguments frozen to None.
    torch::jit::ConstantPropagation(graph);
    // What mutation removal left: writes into views (Swin's attention mask) and read-again tensors.
    functionalize_view_writes(graph);
    // LowerAllTuples corrupts some graphs that still hold control flow (scripted MultiheadAttention
    // crashes libtorch's interpreter afterwards); those get the simple form, and control flow is
    // reported as unconvertible later anyway.
    remove_assertions(graph);
    // Tuples inside dicts (HF-style outputs) can't be lowered by LowerAllTuples either; the host keeps
    // tuples as value lists, so the simple form loses nothing.
    bool keep_some_tuples = false;
    for (auto* n : graph->nodes()) {
      keep_some_tuples |= !n->blocks().empty();
      if (n->kind() == c10::prim::DictConstruct)
        for (auto* in : n->inputs()) keep_some_tuples |= in->type()->kind() == c10::TypeKind::TupleType;
    }
    if (keep_some_tuples) torch::jit::LowerSimpleTuples(graph);
    else torch::jit::LowerAllTuples(graph);
    torch::jit::EliminateDeadCode(graph);
  } catch (const std::exception& e) {
    throw ExportError(path + ": preparing the graph failed: " + first_line(e.what()));
  }
  // After freezing, self is unused: drop it so graph inputs are forward()'s arguments.
  if (!graph->inputs().empty() && graph->inputs()[0]->type()->cast<c10::ClassType>()) {
    if (graph->inputs()[0]->hasUses())
      throw ExportError(path + ": forward() still reads module state after freezing (unsupported attribute use)");
    graph->eraseInput(0);
  }
  out.graph = graph;
  return out;
}

}  // namespace t2o::core
