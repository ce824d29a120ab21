// aten::quantized_lstm / aten::quantized_gru with dynamically quantized weights
// (torch.ao.quantization.quantize_dynamic of nn.LSTM / nn.GRU), unrolled over the (static) sequence
// as ATen computes them:
//   the input projection of a whole layer: DynamicQuantizeLinear of the layer's input sequence (one
//   scale for all steps) → DequantizeLinear → MatMul with the dequantized W_ih → + b_ih;
//   per step: DynamicQuantizeLinear(h) → DequantizeLinear → Gemm with W_hh, b_hh; then the cell's
//   gates (LSTM: i, f, g, o; GRU: r, z, n).
// quantized::make_quantized_cell_params_dynamic (put by the core where the CellParamsBase constants
// were) becomes the list [W_ih params, W_hh params, b_ih, b_hh] the RNNs read.
#include <torch2onnx/plugin.hpp>

#include <string>
#include <vector>

#include "common/forms.hpp"
#include "qdq.hpp"

using namespace t2o;
using namespace t2o::quant;

// quantized::make_quantized_cell_params_dynamic(LinearPackedParamsBase w_ih, LinearPackedParamsBase w_hh,
//     Tensor bias_ih, Tensor bias_hh, bool reduce_range=False) -> CellParamsBase
T2O_SYMBOLIC("quantized::make_quantized_cell_params_dynamic", 11) {
  ctx.set_output(0, ctx.make_list({ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3)}));
}

namespace {

// x (float) dynamically quantized to uint8 and back, as qnnpack's dynamic linear does.
Value dynamic_qdq(Ctx& ctx, const Value& x) {
  auto q = ctx.op_n("DynamicQuantizeLinear", {x}, 3);
  return ctx.op("DequantizeLinear", {q[0], q[1], q[2]});
}

// The packed linear's weight [out, in] and bias (or an invalid Value).
void weight_bias(Ctx& ctx, const Value& params, Value* weight, Value* bias) {
  if (!params.is_list() || params.list_size() != 2) unsupported(ctx.kind() + ": cell weights are not constant packed parameters");
  *weight = params.item(0);
  Value b = params.item(1);
  *bias = b.is_none() ? Value() : b;
}

Value gather(Ctx& ctx, const Value& x, int64_t index, int64_t axis) {
  return ctx.op("Gather", {x, ctx.scalar_i64(index)}, {Attr::i("axis", axis)});
}


// One direction of one layer, unrolled: `projected` is the layer's input projection [T, B, G*H]
// (W_ih and b_ih applied), `state` the initial states (h first), `step` one cell step that takes
// the step's projected input, the recurrent projection (DynamicQuantizeLinear(h) · W_hh + b_hh)
// and updates `state`. Returns the outputs h_t stacked in time order [T, B, H].
template <typename Step>
Value unroll(Ctx& ctx, const Value& projected, const Value& w_hh, const Value& b_hh, int64_t steps, bool reverse,
             std::vector<Value>& state, Step step) {
  std::vector<Value> outs(static_cast<size_t>(steps));
  for (int64_t i = 0; i < steps; ++i) {
    const int64_t t = reverse ? steps - 1 - i : i;
    std::vector<Value> gemm_in = {dynamic_qdq(ctx, state[0]), w_hh};
    if (b_hh.valid()) gemm_in.push_back(b_hh);
    step(gather(ctx, projected, t, 0), ctx.op("Gemm", gemm_in, {Attr::i("transB", 1)}), state);
    outs[size_t(t)] = pack::unsqueeze(ctx, state[0], {0});
  }
  return steps == 1 ? outs[0] : ctx.op("Concat", outs, {Attr::i("axis", 0)});
}

// The arguments both RNNs share, read and checked.
struct RnnArgs {
  Value input;
  std::vector<Value> cells;
  int64_t layers = 0, dirs = 1, steps = 0;
  bool batch_first = false;
};

RnnArgs rnn_args(Ctx& ctx, int layers_at, int train_at, int bidirectional_at, int batch_first_at) {
  RnnArgs a;
  if (ctx.input(train_at).to_bool()) unsupported(ctx.kind() + ": train=True");
  a.input = ctx.input(0);
  a.cells = ctx.input(2).items();
  a.layers = ctx.input(layers_at).to_int();
  a.dirs = ctx.input(bidirectional_at).to_bool() ? 2 : 1;
  a.batch_first = ctx.input(batch_first_at).to_bool();
  if (a.input.rank() != 3) unsupported(ctx.kind() + ": input of rank " + std::to_string(a.input.rank()) + " (batched 3-D only)");
  a.steps = a.input.dim(a.batch_first ? 1 : 0);
  if (a.steps < 0) unsupported(ctx.kind() + ": a dynamic sequence length (the cell is unrolled over the example's steps)");
  if (int64_t(a.cells.size()) != a.layers * a.dirs) fail(ctx.kind() + ": " + std::to_string(a.cells.size()) + " cell parameter sets");
  return a;
}

// Every layer and direction: `init(k)` gives cell k's initial states, `step` is the cell; the final
// states of every cell are collected per state (h, c) in cell order. Returns the last layer's
// outputs in the input's layout.
template <typename Init, typename Step>
Value run_layers(Ctx& ctx, const RnnArgs& a, Init init, Step step, std::vector<std::vector<Value>>& finals) {
  Value seq = a.batch_first ? ctx.op("Transpose", {a.input}, {Attr::ints("perm", {1, 0, 2})}) : a.input;  // [T, B, I]
  for (int64_t layer = 0; layer < a.layers; ++layer) {
    std::vector<Value> dir_outputs;
    Value seq_q = dynamic_qdq(ctx, seq);  // one dynamic scale for the whole input sequence
    for (int64_t dir = 0; dir < a.dirs; ++dir) {
      const int64_t k = layer * a.dirs + dir;
      if (!a.cells[k].is_list() || a.cells[k].list_size() != 4)
        unsupported(ctx.kind() + ": params are not dynamically quantized cells (quantize_dynamic with qint8)");
      Value w_ih, b_ih, w_hh, b_hh;
      weight_bias(ctx, a.cells[k].item(0), &w_ih, &b_ih);
      weight_bias(ctx, a.cells[k].item(1), &w_hh, &b_hh);
      Value projected = ctx.op("MatMul", {seq_q, ctx.op("Transpose", {w_ih}, {Attr::ints("perm", {1, 0})})});
      if (b_ih.valid()) projected = ctx.op("Add", {projected, b_ih});  // [T, B, G*H]
      std::vector<Value> state = init(k);
      dir_outputs.push_back(unroll(ctx, projected, w_hh, b_hh, a.steps, dir == 1, state, step));
      finals.resize(state.size());
      for (size_t s = 0; s < state.size(); ++s) finals[s].push_back(pack::unsqueeze(ctx, state[s], {0}));
    }
    seq = a.dirs == 1 ? dir_outputs[0] : ctx.op("Concat", dir_outputs, {Attr::i("axis", 2)});
  }
  return a.batch_first ? ctx.op("Transpose", {seq}, {Attr::ints("perm", {1, 0, 2})}) : seq;
}

Value stacked(Ctx& ctx, const std::vector<Value>& parts) {
  return parts.size() == 1 ? parts[0] : ctx.op("Concat", parts, {Attr::i("axis", 0)});
}

std::vector<Attr> split_in(Ctx& ctx, int64_t n) {
  std::vector<Attr> attrs = {Attr::i("axis", 1)};
  if (pack::has(ctx, pack::feature::kSplitNumOutputs)) attrs.push_back(Attr::i("num_outputs", n));
  return attrs;
}

}  // namespace

// aten::quantized_lstm.input(Tensor input, Tensor[] hx, CellParamsBase[] params, bool has_biases,
//     int num_layers, float dropout, bool train, bool bidirectional, bool batch_first, *,
//     ScalarType? dtype=None, bool use_dynamic=False) -> (Tensor, Tensor, Tensor)
// Gates i, f, g, o: c = f·c + i·g, h = o·tanh(c).
T2O_SYMBOLIC("aten::quantized_lstm", 11) {
  if (!ctx.input(1).is_list()) unsupported(ctx.kind() + ": packed sequences (the .data overload)");
  auto hx = ctx.input(1).items();
  if (hx.size() != 2) unsupported(ctx.kind() + ": hx is not (h0, c0)");
  RnnArgs a = rnn_args(ctx, 4, 6, 7, 8);
  const auto split_attrs = split_in(ctx, 4);
  auto init = [&](int64_t k) { return std::vector<Value>{gather(ctx, hx[0], k, 0), gather(ctx, hx[1], k, 0)}; };
  auto step = [&](const Value& x_proj, const Value& h_proj, std::vector<Value>& state) {
    auto g = ctx.op_n("Split", {ctx.op("Add", {x_proj, h_proj})}, 4, split_attrs);
    Value in_gate = ctx.op("Sigmoid", {g[0]}), forget = ctx.op("Sigmoid", {g[1]});
    Value cell = ctx.op("Tanh", {g[2]}), out_gate = ctx.op("Sigmoid", {g[3]});
    state[1] = ctx.op("Add", {ctx.op("Mul", {forget, state[1]}), ctx.op("Mul", {in_gate, cell})});
    state[0] = ctx.op("Mul", {out_gate, ctx.op("Tanh", {state[1]})});
  };
  std::vector<std::vector<Value>> finals;
  ctx.set_output(0, run_layers(ctx, a, init, step, finals));
  ctx.set_output(1, stacked(ctx, finals[0]));
  ctx.set_output(2, stacked(ctx, finals[1]));
}

// aten::quantized_gru.input(Tensor input, Tensor hx, CellParamsBase[] params, bool has_biases,
//     int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor)
// Gates r, z, n (PyTorch's order): r = σ(x_r + h_r), z = σ(x_z + h_z), n = tanh(x_n + r·h_n),
// h = (h - n)·z + n (ATen's GRUCell: b_hn stays inside r·h_n).
T2O_SYMBOLIC("aten::quantized_gru", 11) {
  // The .data overload (packed sequences) has the tensor batch_sizes where .input has params.
  if (!ctx.input(2).is_list()) unsupported(ctx.kind() + ": packed sequences (the .data overload)");
  Value hx = ctx.input(1);
  RnnArgs a = rnn_args(ctx, 4, 6, 7, 8);
  const auto split_attrs = split_in(ctx, 3);
  auto init = [&](int64_t k) { return std::vector<Value>{gather(ctx, hx, k, 0)}; };
  auto step = [&](const Value& x_proj, const Value& h_proj, std::vector<Value>& state) {
    auto xg = ctx.op_n("Split", {x_proj}, 3, split_attrs);
    auto hg = ctx.op_n("Split", {h_proj}, 3, split_attrs);
    Value reset = ctx.op("Sigmoid", {ctx.op("Add", {xg[0], hg[0]})});
    Value update = ctx.op("Sigmoid", {ctx.op("Add", {xg[1], hg[1]})});
    Value fresh = ctx.op("Tanh", {ctx.op("Add", {xg[2], ctx.op("Mul", {reset, hg[2]})})});
    state[0] = ctx.op("Add", {ctx.op("Mul", {ctx.op("Sub", {state[0], fresh}), update}), fresh});
  };
  std::vector<std::vector<Value>> finals;
  ctx.set_output(0, run_layers(ctx, a, init, step, finals));
  ctx.set_output(1, stacked(ctx, finals[0]));
}
