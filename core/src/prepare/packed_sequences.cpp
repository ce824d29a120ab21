// Packed sequences (nn.utils.rnn.pack_padded_sequence -> nn.LSTM/GRU/RNN -> pad_packed_sequence)
// rewritten into the form ONNX's recurrent ops take: a padded time-major tensor plus the lengths
// of its sequences (their `sequence_lens` input).
//
// A PackedSequence is (data [sum(lengths), *], batch_sizes [T]): the time steps of every sequence
// interleaved. Nothing in ONNX holds that layout, and batch_sizes is data-dependent, so the pass
// follows each aten::_pack_padded_sequence through the ops that may consume its values:
//   aten::_pack_padded_sequence(input, lengths, batch_first)  -> t2o::pack_padded(input, lengths, batch_first)
//   aten::lstm.data / gru.data / rnn_tanh.data / rnn_relu.data -> t2o::packed_lstm / ... (input, lengths, ...)
//   aten::_pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length)
//                                                             -> t2o::pad_packed(input, lengths, ...)
// where `input` is the padded time-major tensor [T, B, *] and `lengths` the int64 lengths [B].
// The reads of batch_sizes that nn.LSTM & co. make are rewritten too: batch_sizes[0] (the batch
// size) is lengths.size(0), batch_sizes.size(0) (the longest length) is lengths.max(). Any other
// use of a packed sequence's data or batch_sizes is refused, naming the op and where it is.
//
// The t2o:: ops have kernels (below) so that the example run computes exactly what PyTorch does:
// they pack, run and pad with PyTorch's own functions. The packs convert them (plugins/opset9).
#include "prepare/passes.hpp"

#include "common/locations.hpp"

#include <ATen/ATen.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/runtime/custom_operator.h>

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace t2o::core {

namespace {

using torch::jit::Node;
using torch::jit::Stack;
using torch::jit::Value;

// ---- kernels: the example run executes these ----

// Time-major padded result of running `run` on the packed form of input [T, B, *] with `lengths`,
// padded back to T steps (zeros past each length, as pad_packed_sequence gives).
template <typename Run>
at::Tensor run_packed(const at::Tensor& input, const at::Tensor& lengths, Run run, std::vector<at::Tensor>& states) {
  auto packed = at::_pack_padded_sequence(input, lengths, /*batch_first=*/false);
  auto result = run(std::get<0>(packed), std::get<1>(packed));
  auto padded = at::_pad_packed_sequence(std::get<0>(result), std::get<1>(packed), false, 0.0, input.size(0));
  states = std::get<1>(result);
  return std::get<0>(padded);
}

// A packed RNN's kernel: (input, lengths, hx, Tensor[] params, has_biases, num_layers, dropout, train,
// bidirectional) -> (output, states...). `rnn` runs PyTorch's op on the packed data with the state as
// given (Tensor[] for the LSTM, Tensor for the others) and returns (output, [states]).
template <typename Rnn>
torch::jit::Operation packed_rnn_kernel(Rnn rnn) {
  return [rnn](Stack& stack) {
    auto args = torch::jit::last(stack, 9);
    at::Tensor input = args[0].toTensor(), lengths = args[1].toTensor();
    const c10::IValue hx = args[2];
    auto params = args[3].toTensorVector();
    bool has_biases = args[4].toBool(), train = args[7].toBool(), bidirectional = args[8].toBool();
    int64_t layers = args[5].toInt();
    double dropout = args[6].toDouble();
    std::vector<at::Tensor> states;
    at::Tensor out = run_packed(
        input, lengths,
        [&](const at::Tensor& data, const at::Tensor& batch_sizes) {
          return rnn(data, batch_sizes, hx, params, has_biases, layers, dropout, train, bidirectional);
        },
        states);
    torch::jit::drop(stack, 9);
    torch::jit::push(stack, out);
    for (auto& state : states) torch::jit::push(stack, std::move(state));
  };
}

// The single-state RNNs (GRU, RNN tanh/relu): hx is one tensor, one state comes back.
template <typename Rnn>
torch::jit::Operation single_state_rnn(Rnn rnn) {
  return packed_rnn_kernel([rnn](const at::Tensor& data, const at::Tensor& batch_sizes, const c10::IValue& hx,
                                 const std::vector<at::Tensor>& params, bool has_biases, int64_t layers,
                                 double dropout, bool train, bool bidirectional) {
    auto r = rnn(data, batch_sizes, hx.toTensor(), params, has_biases, layers, dropout, train, bidirectional);
    return std::make_tuple(std::get<0>(r), std::vector<at::Tensor>{std::get<1>(r)});
  });
}

at::Tensor pad_to(const at::Tensor& input, const at::Tensor& lengths, bool batch_first, double padding_value,
                  int64_t total_length) {
  TORCH_CHECK(lengths.dim() == 1 && lengths.numel() > 0, "lengths must be a non-empty 1-D tensor");
  int64_t longest = lengths.max().item<int64_t>();
  int64_t steps = total_length >= 0 ? total_length : longest;
  TORCH_CHECK(steps >= longest, "Expected total_length to be at least the length of the longest sequence in input, "
              "but got total_length=", total_length, " and max sequence length being ", longest);
  at::Tensor src = input;
  if (steps > input.size(0)) {
    auto extra = input.sizes().vec();
    extra[0] = steps - input.size(0);
    src = at::cat({input, at::zeros(extra, input.options())});
  }
  src = src.narrow(0, 0, steps);
  auto mask_shape = std::vector<int64_t>(src.dim(), 1);
  mask_shape[0] = steps;
  mask_shape[1] = lengths.size(0);
  auto positions = at::arange(steps, lengths.options()).unsqueeze(1);
  at::Tensor mask = (positions < lengths.unsqueeze(0)).reshape(mask_shape);
  at::Tensor out = at::where(mask, src, at::scalar_tensor(padding_value, src.options()));
  return batch_first ? out.transpose(0, 1).contiguous() : out;
}

torch::jit::RegisterOperators packed_ops({
    torch::jit::Operator(
        "t2o::pack_padded(Tensor input, Tensor lengths, bool batch_first) -> (Tensor, Tensor)",
        [](Stack& stack) {
          bool batch_first = torch::jit::pop(stack).toBool();
          at::Tensor lengths = torch::jit::pop(stack).toTensor();
          at::Tensor input = torch::jit::pop(stack).toTensor();
          at::_pack_padded_sequence(input, lengths, batch_first);  // PyTorch's checks of the lengths
          at::Tensor time_major = batch_first ? input.transpose(0, 1) : input;
          torch::jit::push(stack, time_major.clone(at::MemoryFormat::Contiguous), lengths.clone());
        },
        c10::AliasAnalysisKind::FROM_SCHEMA),
    torch::jit::Operator(
        "t2o::pad_packed(Tensor input, Tensor lengths, bool batch_first, float padding_value, int total_length) -> "
        "(Tensor, Tensor)",
        [](Stack& stack) {
          int64_t total_length = torch::jit::pop(stack).toInt();
          double padding_value = torch::jit::pop(stack).toDouble();
          bool batch_first = torch::jit::pop(stack).toBool();
          at::Tensor lengths = torch::jit::pop(stack).toTensor();
          at::Tensor input = torch::jit::pop(stack).toTensor();
          torch::jit::push(stack, pad_to(input, lengths, batch_first, padding_value, total_length), lengths.clone());
        },
        c10::AliasAnalysisKind::FROM_SCHEMA),
    torch::jit::Operator(
        "t2o::packed_lstm(Tensor input, Tensor lengths, Tensor[] hx, Tensor[] params, bool has_biases, "
        "int num_layers, float dropout, bool train, bool bidirectional) -> (Tensor, Tensor, Tensor)",
        packed_rnn_kernel([](const at::Tensor& data, const at::Tensor& batch_sizes, const c10::IValue& hx,
                             const std::vector<at::Tensor>& params, bool has_biases, int64_t layers, double dropout,
                             bool train, bool bidirectional) {
          auto r = at::lstm(data, batch_sizes, hx.toTensorVector(), params, has_biases, layers, dropout, train,
                            bidirectional);
          return std::make_tuple(std::get<0>(r), std::vector<at::Tensor>{std::get<1>(r), std::get<2>(r)});
        }),
        c10::AliasAnalysisKind::FROM_SCHEMA),
    torch::jit::Operator(
        "t2o::packed_gru(Tensor input, Tensor lengths, Tensor hx, Tensor[] params, bool has_biases, int num_layers, "
        "float dropout, bool train, bool bidirectional) -> (Tensor, Tensor)",
        single_state_rnn([](auto&&... a) { return at::gru(a...); }), c10::AliasAnalysisKind::FROM_SCHEMA),
    torch::jit::Operator(
        "t2o::packed_rnn_tanh(Tensor input, Tensor lengths, Tensor hx, Tensor[] params, bool has_biases, "
        "int num_layers, float dropout, bool train, bool bidirectional) -> (Tensor, Tensor)",
        single_state_rnn([](auto&&... a) { return at::rnn_tanh(a...); }), c10::AliasAnalysisKind::FROM_SCHEMA),
    torch::jit::Operator(
        "t2o::packed_rnn_relu(Tensor input, Tensor lengths, Tensor hx, Tensor[] params, bool has_biases, "
        "int num_layers, float dropout, bool train, bool bidirectional) -> (Tensor, Tensor)",
        single_state_rnn([](auto&&... a) { return at::rnn_relu(a...); }), c10::AliasAnalysisKind::FROM_SCHEMA),
});

// ---- the rewrite ----

const std::unordered_map<std::string, std::string>& packed_rnn_ops() {
  static const std::unordered_map<std::string, std::string> ops = {{"aten::lstm", "t2o::packed_lstm"},
                                                                   {"aten::gru", "t2o::packed_gru"},
                                                                   {"aten::rnn_tanh", "t2o::packed_rnn_tanh"},
                                                                   {"aten::rnn_relu", "t2o::packed_rnn_relu"}};
  return ops;
}

std::optional<int64_t> constant_int(Value* v) {
  auto iv = torch::jit::toIValue(v);
  if (iv && iv->isInt()) return iv->toInt();
  return std::nullopt;
}

[[noreturn]] void refuse(Node* user, const std::string& what) {
  throw ExportError("packed sequence: " + std::string(user->kind().toQualString()) + " at " + location_of(user) +
                    " " + what + "; only nn.LSTM/GRU/RNN and pad_packed_sequence can take a PackedSequence");
}

// One pack_padded_sequence call and every value derived from its PackedSequence.
class PackedFamily {
 public:
  PackedFamily(torch::jit::Graph& graph, Node* pack) : graph_(graph), pack_(pack) {}

  void rewrite() {
    torch::jit::WithInsertPoint here(pack_);
    Node* pack = make(pack_, "t2o::pack_padded", {pack_->input(0), pack_->input(1), pack_->input(2)}, 2);
    batch_sizes_ = pack_->output(1);
    lengths_ = pack->output(1);
    follow(pack_->output(0), pack->output(0));
    rewrite_batch_size_reads();
    // Users first: each old node's outputs are unused by then.
    for (auto it = replaced_.rbegin(); it != replaced_.rend(); ++it) {
      for (auto* out : (*it)->outputs())
        if (out->hasUses()) refuse(out->uses()[0].user, "reads a value of the packed sequence");
      (*it)->destroy();
    }
    pack_->destroy();
  }

 private:
  Node* make(Node* like, const char* kind, const std::vector<Value*>& inputs, size_t outputs) {
    Node* n = graph_.insertNode(graph_.create(c10::Symbol::fromQualString(kind), inputs, outputs));
    n->copyMetadata(like);
    for (auto* o : n->outputs()) o->setType(c10::TensorType::get());
    return n;
  }

  // `data` is a PackedSequence's data, `padded` its time-major padded replacement.
  void follow(Value* data, Value* padded) {
    auto uses = data->uses();
    for (const auto& use : uses) {
      Node* user = use.user;
      std::string kind = user->kind().toQualString();
      auto rnn = packed_rnn_ops().find(kind);
      bool with_batch_sizes = user->inputs().size() > 1 && user->input(1) == batch_sizes_;
      if (rnn != packed_rnn_ops().end() && use.offset == 0 && with_batch_sizes && user->inputs().size() == 9) {
        // (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)
        torch::jit::WithInsertPoint here(user);
        std::vector<Value*> inputs = user->inputs().vec();
        inputs[0] = padded;
        inputs[1] = lengths_;
        Node* n = make(user, rnn->second.c_str(), inputs, user->outputs().size());
        for (size_t k = 1; k < user->outputs().size(); ++k) user->output(k)->replaceAllUsesWith(n->output(k));
        replaced_.push_back(user);
        follow(user->output(0), n->output(0));
      } else if (kind == "aten::_pad_packed_sequence" && use.offset == 0 && with_batch_sizes) {
        // (data, batch_sizes, batch_first, padding_value, total_length): the longest length when
        // pad_packed_sequence was given no total_length.
        torch::jit::WithInsertPoint here(user);
        Value* total = user->input(4);
        Node* source = total->node();
        if (source->kind() == c10::aten::size && source->inputs().size() == 2 && source->input(0) == batch_sizes_ &&
            constant_int(source->input(1)) == 0)
          total = graph_.insertConstant((int64_t)-1);
        Node* n = make(user, "t2o::pad_packed", {padded, lengths_, user->input(2), user->input(3), total}, 2);
        user->output(0)->replaceAllUsesWith(n->output(0));
        user->output(1)->replaceAllUsesWith(n->output(1));
        replaced_.push_back(user);
      } else if (kind == "prim::dtype" || kind == "prim::device" || kind == "prim::layout") {
        user->replaceInput(use.offset, padded);
      } else if (kind == "aten::size" && user->inputs().size() == 2 && constant_int(user->input(1)) == -1) {
        user->replaceInput(use.offset, padded);  // the feature size: the last dim of both forms
      } else {
        refuse(user, "reads the data of a PackedSequence");
      }
    }
  }

  // batch_sizes[0] is the number of sequences; batch_sizes.size(0) the longest length.
  void rewrite_batch_size_reads() {
    auto uses = batch_sizes_->uses();
    for (const auto& use : uses) {
      Node* user = use.user;
      if (std::find(replaced_.begin(), replaced_.end(), user) != replaced_.end()) continue;
      torch::jit::WithInsertPoint here(user);
      Value* replacement = nullptr;
      if (user->kind() == c10::aten::select && user->inputs().size() == 3 && constant_int(user->input(1)) == 0 &&
          constant_int(user->input(2)) == 0) {
        Value* count = graph_.insert(c10::aten::size, {lengths_, 0});
        replacement = graph_.insert(c10::prim::NumToTensor, {count});
      } else if (user->kind() == c10::aten::size && user->inputs().size() == 2 && constant_int(user->input(1)) == 0) {
        Value* longest = graph_.insert(c10::aten::max, {lengths_});
        replacement = graph_.insert(c10::aten::Int, {longest});
      } else if (user->kind() == c10::prim::device) {
        user->replaceInput(use.offset, lengths_);
        continue;
      } else {
        refuse(user, "reads the batch_sizes of a PackedSequence");
      }
      replacement->node()->copyMetadata(user);
      user->output()->replaceAllUsesWith(replacement);
      replaced_.push_back(user);
    }
  }

  torch::jit::Graph& graph_;
  Node* pack_;
  Value* batch_sizes_ = nullptr;
  Value* lengths_ = nullptr;
  std::vector<Node*> replaced_;
};

void collect_packs(torch::jit::Block* block, std::vector<Node*>& packs) {
  for (auto* n : block->nodes()) {
    if (n->kind() == c10::Symbol::fromQualString("aten::_pack_padded_sequence")) packs.push_back(n);
    for (auto* b : n->blocks()) collect_packs(b, packs);
  }
}

}  // namespace

void lower_packed_sequences(const std::shared_ptr<torch::jit::Graph>& graph) {
  // Shape checks nobody reads any more (dropped asserts) would otherwise count as uses.
  torch::jit::EliminateDeadCode(graph);
  std::vector<Node*> packs;
  collect_packs(graph->block(), packs);
  for (auto* pack : packs) PackedFamily(*graph, pack).rewrite();
  if (!packs.empty()) torch::jit::EliminateDeadCode(graph);
}

bool has_data_dependent_size(const torch::jit::Node* node) {
  // pad_packed_sequence without total_length: as many steps as the longest length.
  static const auto pad = c10::Symbol::fromQualString("t2o::pad_packed");
  if (node->kind() != pad) return false;
  auto total = torch::jit::toIValue(node->input(4));
  return !total || !total->isInt() || total->toInt() < 0;
}

}  // namespace t2o::core
