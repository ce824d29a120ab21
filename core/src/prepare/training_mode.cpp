// What --training says about a prepared model, as warnings (torch.onnx warns the same way).
//
// The mode is applied to the module (module.eval() / train() / nothing, in prepare()); the ops then
// carry their own train flag as a constant. An op whose flag disagrees with the mode is exported
// with its own flag, as torch.onnx's check_training_mode does: a model traced in one mode keeps it
// (the trace baked the flag in), and F.dropout(x, training=True) drops in every mode.
#include "prepare/passes.hpp"

#include "common/locations.hpp"

namespace t2o::core {

namespace {

using torch::jit::Node;

// The index of the train flag of the ops that behave differently in training, or -1.
int train_flag_index(const Node* n) {
  const std::string kind = n->kind().toQualString();
  if (kind == "aten::batch_norm") return 5;
  for (const char* dropout : {"aten::dropout", "aten::feature_dropout", "aten::alpha_dropout",
                              "aten::feature_alpha_dropout", "aten::native_dropout"})
    if (kind == dropout || kind == std::string(dropout) + "_") return 2;
  return -1;
}

void scan(torch::jit::Block* block, std::vector<const Node*>& training, std::vector<const Node*>& inference) {
  for (Node* n : block->nodes()) {
    for (auto* b : n->blocks()) scan(b, training, inference);
    int i = train_flag_index(n);
    if (i < 0 || (size_t)i >= n->inputs().size()) continue;
    auto flag = torch::jit::toIValue(n->input((size_t)i));
    if (!flag || !flag->isBool()) continue;  // computed at run time: the pack refuses it
    (flag->toBool() ? training : inference).push_back(n);
  }
}

std::string listed(const std::vector<const Node*>& nodes) {
  std::string out;
  for (size_t k = 0; k < nodes.size() && k < 3; ++k)
    out += (k ? ", " : "") + std::string(nodes[k]->kind().toQualString()) + " at " + location_of(nodes[k]);
  if (nodes.size() > 3) out += ", and " + std::to_string(nodes.size() - 3) + " more";
  return out;
}

}  // namespace

void warn_training_mode(const std::shared_ptr<torch::jit::Graph>& graph, TrainingMode mode,
                        const std::vector<std::string>& dropped_updates,
                        const std::function<void(const std::string&)>& warn) {
  if (!warn) return;
  std::vector<const Node*> training, inference;
  scan(graph->block(), training, inference);
  const std::string flag = std::string("--training ") + training_mode_name(mode);
  if (mode == TrainingMode::Eval && !training.empty())
    warn(flag + ", but " + std::to_string(training.size()) + " op(s) are set to train=True (" + listed(training) +
         "; a model traced in training mode keeps it): exported with train=True, as torch.onnx does");
  if (mode == TrainingMode::Train && !inference.empty())
    warn(flag + ", but " + std::to_string(inference.size()) + " op(s) are set to train=False (" + listed(inference) +
         "; a model traced in eval mode keeps it): exported with train=False, as torch.onnx does");
  if (mode == TrainingMode::Train && training.empty() && inference.empty())
    warn(flag + ": the model has no op that behaves differently in training (Dropout, BatchNorm): the export "
                "is the same as in eval mode");
  // BatchNorm in training mode with running statistics: their update (inside the op, and
  // num_batches_tracked += 1 where forward() counts) is not exported.
  size_t updating = 0;
  for (const Node* n : training)
    updating += n->kind() == c10::Symbol::fromQualString("aten::batch_norm") && n->inputs().size() > 3 &&
                !n->input(3)->type()->cast<c10::NoneType>();
  if (updating > 0)
    warn("training mode: the running statistics of " + std::to_string(updating) +
         " BatchNorm op(s) are not updated by the export (running_mean, running_var" +
         (dropped_updates.empty() ? std::string() : ", num_batches_tracked") +
         "), as torch.onnx does not update them: an ONNX model keeps no state between runs");
}

}  // namespace t2o::core
