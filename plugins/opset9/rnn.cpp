// aten::lstm, aten::gru, aten::rnn_tanh, aten::rnn_relu -> one ONNX LSTM / GRU / RNN node per layer
// (bidirectional = direction "bidirectional"); the *_cell ops (nn.LSTMCell, ...) -> one node over a
// length-1 sequence.
//
// PyTorch's flat weights (per layer, per direction: w_ih, w_hh, [b_ih, b_hh]) are re-laid out at
// export time into ONNX's W [D, G*H, I], R [D, G*H, H], B [D, 2*G*H], with the gate blocks
// reordered: LSTM i,f,g,o -> i,o,f,c; GRU r,z,n -> z,r,h (linear_before_reset=1 matches PyTorch's
// n = tanh(W_in x + b_in + r * (W_hn h + b_hn))). Weights computed at run time (a functional
// call with tensors as inputs) get the same re-layout as Slice/Concat nodes.
// batch_first is a Transpose on each side: ORT's CPU kernels do not implement layout=1 (opset 14).
//
// Packed sequences: core/src/prepare/packed_sequences.cpp turns aten::lstm.data & co. (a PackedSequence's
// data and batch_sizes) into t2o::packed_lstm / packed_gru / packed_rnn_tanh / packed_rnn_relu
//   (Tensor input, Tensor lengths, hx, Tensor[] params, bool has_biases, int num_layers,
//    float dropout, bool train, bool bidirectional)
// over the padded time-major input [T, B, I] and the int64 lengths [B]: the lengths are the ONNX
// node's sequence_lens (int32), so each sequence stops at its length in both directions and h_n/c_n
// are its state there, as PyTorch's packed run gives.
#include <torch2onnx/plugin.hpp>

#include "common/host_tensor.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

enum class Cell { Lstm, Gru, RnnTanh, RnnRelu };

struct CellInfo {
  const char* onnx;
  int64_t gates;
  std::vector<int64_t> order;  // ONNX gate block i = PyTorch gate block order[i]
};

CellInfo info(Cell c) {
  switch (c) {
    case Cell::Lstm: return {"LSTM", 4, {0, 3, 1, 2}};
    case Cell::Gru: return {"GRU", 3, {1, 0, 2}};
    default: return {"RNN", 1, {0}};
  }
}

Value cat0(Ctx& ctx, const std::vector<Value>& parts) {
  if (parts.size() == 1) return parts[0];
  return ctx.op("Concat", parts, {Attr::i("axis", 0)});
}

// Gate-block reorder of a run-time weight/bias along axis 0.
Value reorder_in_graph(Ctx& ctx, const Value& w, const std::vector<int64_t>& order, int64_t hidden) {
  if (order.size() == 1) return ctx.as_onnx(w);
  std::vector<Value> parts;
  for (auto g : order) parts.push_back(slice(ctx, w, {0}, {g * hidden}, {(g + 1) * hidden}));
  return cat0(ctx, parts);
}

struct LayerWeights {
  Value W, R, B;  // B invalid without biases
};

// params[first ...]: per direction w_ih, w_hh, [b_ih, b_hh].
LayerWeights layer_weights(Ctx& ctx, const std::vector<Value>& params, size_t first, int64_t dirs, bool has_biases,
                           const CellInfo& ci, int64_t hidden) {
  size_t per_dir = has_biases ? 4 : 2;
  bool all_constant = true;
  for (size_t i = first; i < first + per_dir * (size_t)dirs; ++i)
    all_constant = all_constant && params[i].kind() == T2O_KIND_TENSOR && params[i].is_const();
  LayerWeights lw;
  if (all_constant) {
    std::vector<HostTensor> W, R, B;
    for (int64_t d = 0; d < dirs; ++d) {
      size_t p = first + per_dir * (size_t)d;
      W.push_back(reorder_blocks(read_const(ctx, params[p], "w_ih"), ci.order));
      R.push_back(reorder_blocks(read_const(ctx, params[p + 1], "w_hh"), ci.order));
      if (has_biases)
        B.push_back(concat0({reorder_blocks(read_const(ctx, params[p + 2], "b_ih"), ci.order),
                             reorder_blocks(read_const(ctx, params[p + 3], "b_hh"), ci.order)}));
    }
    lw.W = make_const(ctx, stack0(W));
    lw.R = make_const(ctx, stack0(R));
    if (has_biases) lw.B = make_const(ctx, stack0(B));
    return lw;
  }
  std::vector<Value> W, R, B;
  for (int64_t d = 0; d < dirs; ++d) {
    size_t p = first + per_dir * (size_t)d;
    W.push_back(unsqueeze(ctx, reorder_in_graph(ctx, params[p], ci.order, hidden), {0}));
    R.push_back(unsqueeze(ctx, reorder_in_graph(ctx, params[p + 1], ci.order, hidden), {0}));
    if (has_biases) {
      Value b = ctx.op("Concat", {reorder_in_graph(ctx, params[p + 2], ci.order, hidden),
                                  reorder_in_graph(ctx, params[p + 3], ci.order, hidden)},
                       {Attr::i("axis", 0)});
      B.push_back(unsqueeze(ctx, b, {0}));
    }
  }
  lw.W = cat0(ctx, W);
  lw.R = cat0(ctx, R);
  if (has_biases) lw.B = cat0(ctx, B);
  return lw;
}

// An initial state [L*D, B, H] (invalid = zeros): constant all-zero states are dropped (ONNX's
// default), and layer l's [D, B, H] part is sliced out.
Value initial_state(Ctx& ctx, const Value& h) {
  if (!h.valid() || h.is_none()) return Value();
  if (h.kind() != T2O_KIND_TENSOR) fail(ctx.kind() + ": initial state is not a tensor");
  if (h.is_const() && read_const(ctx, h, "initial state").all_zero()) return Value();
  return h;
}

Value layer_state(Ctx& ctx, const Value& h, int64_t layer, int64_t dirs, int64_t layers) {
  if (!h.valid()) return Value();
  if (layers == 1) return ctx.as_onnx(h);
  if (h.is_const()) return make_const(ctx, rows(read_const(ctx, h, "initial state"), layer * dirs, (layer + 1) * dirs));
  return slice(ctx, h, {0}, {layer * dirs}, {(layer + 1) * dirs});
}

// ONNX Y [T, D, B, H] -> PyTorch [T, B, D*H].
Value merge_directions(Ctx& ctx, const Value& y, int64_t dirs) {
  if (dirs == 1) return squeeze(ctx, y, {1});
  Value t = ctx.op("Transpose", {y}, {Attr::ints("perm", {0, 2, 1, 3})});
  return ctx.op("Reshape", {t, ctx.const_i64({0, 0, -1})});
}

void convert(Ctx& ctx, Cell cell, bool packed) {
  const CellInfo ci = info(cell);
  bool lstm = cell == Cell::Lstm;
  // lstm(input, Tensor[] hx, Tensor[] params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
  // gru/rnn_*(input, Tensor hx, Tensor[] params, ...same)
  // t2o::packed_*(input, lengths, hx, params, has_biases, num_layers, dropout, train, bidirectional)
  // The aten .data overloads (packed sequences) have a batch_sizes tensor where hx / params are;
  // the core rewrites them into the t2o:: ops, so meeting one here means a use it did not know.
  if (ctx.num_inputs() != 9) unsupported(ctx.kind() + ": overload with " + std::to_string(ctx.num_inputs()) + " inputs");
  int32_t shift = packed ? 1 : 0;
  Value x = ctx.input(0), hx = ctx.input(1 + shift), params_v = ctx.input(2 + shift);
  if (!packed && ((lstm && hx.kind() == T2O_KIND_TENSOR) || (!lstm && params_v.kind() == T2O_KIND_TENSOR)))
    unsupported(ctx.kind() + ": packed sequences (PackedSequence input) outside pack_padded_sequence");
  // ONNX's sequence_lens is int32.
  Value sequence_lens = packed ? cast_to(ctx, ctx.as_onnx(ctx.input(1)), T2O_DTYPE_INT32) : Value();
  // Frozen modules hold their flat weights (and constant initial states) as Tensor[] constants.
  for (auto* arg : {lstm ? "hx" : "", "params"}) {
    Value v = std::string(arg) == "hx" ? hx : params_v;
    if (*arg && v.kind() != T2O_KIND_LIST)
      unsupported(ctx.kind() + ": argument '" + arg + "' is not a list the exporter can read (kind " +
                  std::to_string((int)v.kind()) + "; a Tensor[] constant needs host support)");
  }
  bool has_biases = ctx.input(3 + shift).to_bool();
  int64_t layers = ctx.input(4 + shift).to_int();
  double dropout = ctx.input(5 + shift).to_float();
  bool train = ctx.input(6 + shift).to_bool();
  bool bidirectional = ctx.input(7 + shift).to_bool();
  bool batch_first = !packed && ctx.input(8).to_bool();  // packed inputs are time-major
  if (train && dropout > 0 && layers > 1)
    unsupported(ctx.kind() + ": dropout=" + std::to_string(dropout) + " in training mode");
  int64_t dirs = bidirectional ? 2 : 1;
  std::vector<Value> params = params_v.items();
  size_t per_dir = has_biases ? 4 : 2;
  if (params.size() != per_dir * (size_t)(dirs * layers)) {
    if (lstm && params.size() == (per_dir + 1) * (size_t)(dirs * layers))
      unsupported(ctx.kind() + ": proj_size > 0 (LSTM with projections) has no ONNX LSTM equivalent");
    fail(ctx.kind() + ": " + std::to_string(params.size()) + " weights for " + std::to_string(layers) + " layer(s) x " +
         std::to_string(dirs) + " direction(s)");
  }
  if (x.rank() != 3) unsupported(ctx.kind() + ": input of rank " + std::to_string(x.rank()) + " (expected 3)");

  Value h0, c0;
  if (lstm) {
    std::vector<Value> states = hx.items();
    if (states.size() != 2) fail("aten::lstm: hx should hold (h0, c0)");
    h0 = initial_state(ctx, states[0]);
    c0 = initial_state(ctx, states[1]);
  } else {
    h0 = initial_state(ctx, hx);
  }

  Value w_hh = params[1];
  int64_t hidden = w_hh.rank() == 2 ? w_hh.dim(1) : -1;
  if (hidden < 0) unsupported(ctx.kind() + ": hidden size unknown (weight w_hh has no static shape)");

  Value seq = batch_first ? ctx.op("Transpose", {x}, {Attr::ints("perm", {1, 0, 2})}) : ctx.as_onnx(x);
  std::vector<Value> hs, cs;
  for (int64_t l = 0; l < layers; ++l) {
    LayerWeights lw = layer_weights(ctx, params, per_dir * (size_t)(dirs * l), dirs, has_biases, ci, hidden);
    std::vector<Value> in{seq, lw.W, lw.R, lw.B, sequence_lens, layer_state(ctx, h0, l, dirs, layers)};
    if (lstm) in.push_back(layer_state(ctx, c0, l, dirs, layers));
    while (!in.back().valid()) in.pop_back();  // trailing omitted optional inputs
    std::vector<Attr> attrs{Attr::i("hidden_size", hidden)};
    if (bidirectional) attrs.push_back(Attr::s("direction", "bidirectional"));
    if (cell == Cell::Gru) attrs.push_back(Attr::i("linear_before_reset", 1));
    if (cell == Cell::RnnTanh || cell == Cell::RnnRelu) {
      std::string act = cell == Cell::RnnTanh ? "Tanh" : "Relu";
      attrs.push_back(Attr::strings("activations", std::vector<std::string>((size_t)dirs, act)));
    }
    std::vector<Value> outs = ctx.op_n(ci.onnx, in, lstm ? 3 : 2, attrs);
    seq = merge_directions(ctx, outs[0], dirs);
    hs.push_back(outs[1]);
    if (lstm) cs.push_back(outs[2]);
  }
  if (batch_first) seq = ctx.op("Transpose", {seq}, {Attr::ints("perm", {1, 0, 2})});
  ctx.set_output(0, seq);
  ctx.set_output(1, cat0(ctx, hs));
  if (lstm) ctx.set_output(2, cat0(ctx, cs));
}

// One ONNX node over a length-1 sequence: aten::lstm_cell(input, Tensor[] hx, w_ih, w_hh, b_ih?, b_hh?)
// -> (h, c); gru_cell / rnn_*_cell(input, Tensor? hx, w_ih, w_hh, b_ih?, b_hh?) -> h. Inputs [B, I]
// (nn.*Cell unsqueezes unbatched inputs before the call), states [B, H].
void convert_cell(Ctx& ctx, Cell cell) {
  const CellInfo ci = info(cell);
  bool lstm = cell == Cell::Lstm;
  Value x = ctx.input(0);
  if (x.rank() != 2) unsupported(ctx.kind() + ": input of rank " + std::to_string(x.rank()) + " (expected 2)");
  Value h0, c0;
  if (lstm) {
    Value hx = ctx.input(1);
    if (hx.kind() != T2O_KIND_LIST)
      unsupported(ctx.kind() + ": argument 'hx' is not a list the exporter can read (kind " +
                  std::to_string((int)hx.kind()) + "; a Tensor[] constant needs host support)");
    std::vector<Value> states = hx.items();
    if (states.size() != 2) fail("aten::lstm_cell: hx should hold (h, c)");
    h0 = initial_state(ctx, states[0]);
    c0 = initial_state(ctx, states[1]);
  } else {
    h0 = initial_state(ctx, opt_input(ctx, 1));
  }
  std::vector<Value> params{ctx.input(2), ctx.input(3)};
  Value b_ih = opt_input(ctx, 4), b_hh = opt_input(ctx, 5);
  if (b_ih.valid() != b_hh.valid()) unsupported(ctx.kind() + ": only one of b_ih / b_hh given");
  bool has_biases = b_ih.valid();
  if (has_biases) params.insert(params.end(), {b_ih, b_hh});
  int64_t hidden = params[1].rank() == 2 ? params[1].dim(1) : -1;
  if (hidden < 0) unsupported(ctx.kind() + ": hidden size unknown (weight w_hh has no static shape)");
  LayerWeights lw = layer_weights(ctx, params, 0, 1, has_biases, ci, hidden);
  auto seq1 = [&](const Value& v) { return v.valid() ? unsqueeze(ctx, v, {0}) : Value(); };
  std::vector<Value> in{seq1(x), lw.W, lw.R, lw.B, Value(), seq1(h0)};
  if (lstm) in.push_back(seq1(c0));
  while (!in.back().valid()) in.pop_back();
  std::vector<Attr> attrs{Attr::i("hidden_size", hidden)};
  if (cell == Cell::Gru) attrs.push_back(Attr::i("linear_before_reset", 1));
  if (cell == Cell::RnnTanh || cell == Cell::RnnRelu)
    attrs.push_back(Attr::strings("activations", {cell == Cell::RnnTanh ? "Tanh" : "Relu"}));
  std::vector<Value> outs = ctx.op_n(ci.onnx, in, lstm ? 3 : 2, attrs);
  ctx.set_output(0, squeeze(ctx, outs[1], {0}));  // Y_h [1, B, H]
  if (lstm) ctx.set_output(1, squeeze(ctx, outs[2], {0}));
}

}  // namespace

T2O_SYMBOLIC("aten::lstm_cell", 9) { convert_cell(ctx, Cell::Lstm); }
T2O_SYMBOLIC("aten::gru_cell", 9) { convert_cell(ctx, Cell::Gru); }
T2O_SYMBOLIC("aten::rnn_tanh_cell", 9) { convert_cell(ctx, Cell::RnnTanh); }
T2O_SYMBOLIC("aten::rnn_relu_cell", 9) { convert_cell(ctx, Cell::RnnRelu); }
T2O_SYMBOLIC("aten::lstm", 9) { convert(ctx, Cell::Lstm, false); }
T2O_SYMBOLIC("aten::gru", 9) { convert(ctx, Cell::Gru, false); }
T2O_SYMBOLIC("aten::rnn_tanh", 9) { convert(ctx, Cell::RnnTanh, false); }
T2O_SYMBOLIC("aten::rnn_relu", 9) { convert(ctx, Cell::RnnRelu, false); }
T2O_SYMBOLIC("t2o::packed_lstm", 9) { convert(ctx, Cell::Lstm, true); }
T2O_SYMBOLIC("t2o::packed_gru", 9) { convert(ctx, Cell::Gru, true); }
T2O_SYMBOLIC("t2o::packed_rnn_tanh", 9) { convert(ctx, Cell::RnnTanh, true); }
T2O_SYMBOLIC("t2o::packed_rnn_relu", 9) { convert(ctx, Cell::RnnRelu, true); }
