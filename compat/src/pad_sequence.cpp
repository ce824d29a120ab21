// aten::pad_sequence.t2o_padding_side(Tensor[] sequences, bool batch_first=False, float padding_value=0.,
//     str padding_side="right") -> Tensor
// PyTorch 2.5 added padding_side to aten::pad_sequence; libtorch 1.13 has the overload without it, so
// a saved call with padding_side="left" matches nothing. This second overload takes it: the sequences
// (each (L_i, *)) stacked into (max L, B, *) or (B, max L, *), filled with padding_value, each one
// aligned to the start ("right") or to the end ("left").
#include "compat_common.hpp"

namespace t2o_compat {
namespace {

at::Tensor pad_sequence(at::TensorList sequences, bool batch_first, double padding_value, c10::string_view side) {
  const char* op = "aten::pad_sequence";
  TORCH_CHECK(side == "left" || side == "right", op, ": Expected padding_side to be one of left or right, but got ",
              side, ".");
  TORCH_CHECK(!sequences.empty(), op, ": received an empty list of sequences");
  const bool left = side == "left";
  int64_t max_len = 0;
  for (const auto& s : sequences) {
    TORCH_CHECK(s.dim() >= 1, op, ": expected every sequence to have at least one dim, got a 0-d tensor");
    max_len = std::max(max_len, s.size(0));
  }
  const int64_t count = sequences.size();
  std::vector<int64_t> dims = {batch_first ? count : max_len, batch_first ? max_len : count};
  auto trailing = sequences[0].sizes().slice(1);
  dims.insert(dims.end(), trailing.begin(), trailing.end());
  at::Tensor out = at::full(dims, padding_value, sequences[0].options());
  for (int64_t i = 0; i < count; ++i) {
    const auto& s = sequences[i];
    const int64_t len = s.size(0), start = left ? max_len - len : 0;
    if (batch_first) {
      out.select(0, i).narrow(0, start, len).copy_(s);
    } else {
      out.narrow(0, start, len).select(1, i).copy_(s);
    }
  }
  return out;
}

}  // namespace
}  // namespace t2o_compat

#if T2O_TORCH_LACKS(2, 5)  // pad_sequence with padding_side: PyTorch 2.5
TORCH_LIBRARY_FRAGMENT(aten, m) {
  m.def("pad_sequence.t2o_padding_side(Tensor[] sequences, bool batch_first=False, float padding_value=0., "
        "str padding_side=\"right\") -> Tensor");
}

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("pad_sequence.t2o_padding_side", TORCH_FN(t2o_compat::pad_sequence));
}
#endif
