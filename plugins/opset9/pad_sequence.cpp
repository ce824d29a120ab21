// aten::pad_sequence(Tensor[] sequences, bool batch_first=False, float padding_value=0.,
//     str padding_side="right") (padding_side: PyTorch 2.5+): each sequence [L_i, *] padded with
// padding_value to the longest length, after its items ("right") or before them ("left"), then
// stacked on axis 0 (batch_first) or 1: Pad + Unsqueeze + Concat. Lengths are read at export time.
#include <torch2onnx/plugin.hpp>

#include <algorithm>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::pad_sequence", 9) {
  Value list = ctx.input(0);
  if (list.kind() != T2O_KIND_LIST) unsupported("aten::pad_sequence: a list of sequences built at run time");
  const std::vector<Value> seqs = list.items();
  if (seqs.empty()) fail("aten::pad_sequence: received an empty list of sequences");
  const bool batch_first = ctx.num_inputs() > 1 && ctx.input(1).to_bool();
  const double value = ctx.num_inputs() > 2 ? ctx.input(2).to_float() : 0.0;
  std::string side = "right";
  if (ctx.num_inputs() > 3) side = ctx.input(3).to_string();
  if (side != "right" && side != "left")
    fail("aten::pad_sequence: padding_side='" + side + "' (PyTorch takes 'right' or 'left')");
  const int64_t r = known_rank(ctx, seqs[0], "sequence", 1);
  int64_t longest = 0;
  for (const Value& s : seqs) {
    if (s.rank() != r) fail("aten::pad_sequence: sequences of different ranks");
    if (s.dim(0) < 0) unsupported("aten::pad_sequence: a sequence of dynamic length (the padding is fixed at export time)");
    longest = std::max(longest, s.dim(0));
  }
  const t2o_dtype dt = output_dtype(ctx, 0, seqs[0].dtype());
  std::vector<Value> rows;
  for (const Value& s : seqs) {
    Value x = cast_to(ctx, ctx.as_onnx(s), dt);
    const int64_t missing = longest - s.dim(0);
    if (missing > 0) {
      std::vector<int64_t> pads((size_t)(2 * r), 0);
      pads[side == "left" ? 0 : (size_t)r] = missing;  // ONNX order: every begin, then every end
      x = pad_constant(ctx, x, dt, pads, value);
    }
    rows.push_back(unsqueeze(ctx, x, {batch_first ? 0 : 1}));
  }
  ctx.set_output(0, rows.size() == 1 ? rows[0] : ctx.op("Concat", rows, {Attr::i("axis", batch_first ? 0 : 1)}));
}
