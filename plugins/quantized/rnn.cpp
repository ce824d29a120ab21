// aten::quantized_lstm with dynamically quantized weights (torch.ao.quantization.quantize_dynamic of
// nn.LSTM), unrolled over the (static) sequence as qnnpack computes it:
//   the input projection of a whole layer: DynamicQuantizeLinear of the layer's input sequence (one
//   scale for all steps) → DequantizeLinear → MatMul with the dequantized W_ih → + b_ih;
//   per step: DynamicQuantizeLinear(h) → DequantizeLinear → Gemm with W_hh, b_hh; gates i, f, g, o;
//   c = f·c + i·g, h = o·tanh(c).
// quantized::make_quantized_cell_params_dynamic (put by the core where the CellParamsBase constants
// were) becomes the list [W_ih params, W_hh params, b_ih, b_hh] the LSTM reads.
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

}  // namespace

// aten::quantized_lstm.input(Tensor input, Tensor[] hx, CellParamsBase[] params, bool has_biases,
//     int num_layers, float dropout, bool train, bool bidirectional, bool batch_first, *,
//     ScalarType? dtype=None, bool use_dynamic=False) -> (Tensor, Tensor, Tensor)
T2O_SYMBOLIC("aten::quantized_lstm", 11) {
  if (!ctx.input(1).is_list()) unsupported(ctx.kind() + ": packed sequences (the .data overload)");
  if (ctx.input(6).to_bool()) unsupported(ctx.kind() + ": train=True");
  Value input = ctx.input(0);
  auto hx = ctx.input(1).items();
  auto cells = ctx.input(2).items();
  const int64_t layers = ctx.input(4).to_int();
  const bool bidirectional = ctx.input(7).to_bool(), batch_first = ctx.input(8).to_bool();
  const int64_t dirs = bidirectional ? 2 : 1;
  if (input.rank() != 3) unsupported(ctx.kind() + ": input of rank " + std::to_string(input.rank()) + " (batched 3-D only)");
  const int64_t steps = input.dim(batch_first ? 1 : 0);
  if (steps < 0) unsupported(ctx.kind() + ": a dynamic sequence length (the cell is unrolled over the example's steps)");
  if (hx.size() != 2) unsupported(ctx.kind() + ": hx is not (h0, c0)");
  if (int64_t(cells.size()) != layers * dirs) fail(ctx.kind() + ": " + std::to_string(cells.size()) + " cell parameter sets");
  const int64_t hidden = hx[0].dim(2);
  std::vector<Attr> split_attrs = {Attr::i("axis", 1)};
  if (pack::has(ctx, pack::feature::kSplitNumOutputs)) split_attrs.push_back(Attr::i("num_outputs", 4));

  Value seq = batch_first ? ctx.op("Transpose", {input}, {Attr::ints("perm", {1, 0, 2})}) : input;  // [T, B, I]
  std::vector<Value> h_last, c_last;
  for (int64_t layer = 0; layer < layers; ++layer) {
    std::vector<Value> dir_outputs;
    Value seq_q = dynamic_qdq(ctx, seq);  // one dynamic scale for the whole input sequence
    for (int64_t dir = 0; dir < dirs; ++dir) {
      const int64_t k = layer * dirs + dir;
      if (!cells[k].is_list() || cells[k].list_size() != 4)
        unsupported(ctx.kind() + ": params are not dynamically quantized cells (quantize_dynamic with qint8)");
      Value w_ih, b_ih, w_hh, b_hh;
      weight_bias(ctx, cells[k].item(0), &w_ih, &b_ih);
      weight_bias(ctx, cells[k].item(1), &w_hh, &b_hh);
      Value projected = ctx.op("MatMul", {seq_q, ctx.op("Transpose", {w_ih}, {Attr::ints("perm", {1, 0})})});
      if (b_ih.valid()) projected = ctx.op("Add", {projected, b_ih});  // [T, B, 4H]
      Value h = gather(ctx, hx[0], k, 0), c = gather(ctx, hx[1], k, 0);
      std::vector<Value> outs(static_cast<size_t>(steps));
      for (int64_t i = 0; i < steps; ++i) {
        const int64_t t = dir == 0 ? i : steps - 1 - i;
        std::vector<Value> gemm_in = {dynamic_qdq(ctx, h), w_hh};
        if (b_hh.valid()) gemm_in.push_back(b_hh);
        Value gates = ctx.op("Add", {gather(ctx, projected, t, 0), ctx.op("Gemm", gemm_in, {Attr::i("transB", 1)})});
        auto g = ctx.op_n("Split", {gates}, 4, split_attrs);
        Value in_gate = ctx.op("Sigmoid", {g[0]}), forget = ctx.op("Sigmoid", {g[1]});
        Value cell = ctx.op("Tanh", {g[2]}), out_gate = ctx.op("Sigmoid", {g[3]});
        c = ctx.op("Add", {ctx.op("Mul", {forget, c}), ctx.op("Mul", {in_gate, cell})});
        h = ctx.op("Mul", {out_gate, ctx.op("Tanh", {c})});
        outs[size_t(t)] = pack::unsqueeze(ctx, h, {0});
      }
      dir_outputs.push_back(steps == 1 ? outs[0] : ctx.op("Concat", outs, {Attr::i("axis", 0)}));
      h_last.push_back(pack::unsqueeze(ctx, h, {0}));
      c_last.push_back(pack::unsqueeze(ctx, c, {0}));
    }
    seq = dirs == 1 ? dir_outputs[0] : ctx.op("Concat", dir_outputs, {Attr::i("axis", 2)});
  }
  (void)hidden;
  ctx.set_output(0, batch_first ? ctx.op("Transpose", {seq}, {Attr::ints("perm", {1, 0, 2})}) : seq);
  ctx.set_output(1, h_last.size() == 1 ? h_last[0] : ctx.op("Concat", h_last, {Attr::i("axis", 0)}));
  ctx.set_output(2, c_last.size() == 1 ? c_last[0] : ctx.op("Concat", c_last, {Attr::i("axis", 0)}));
}
