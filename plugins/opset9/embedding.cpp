// aten::embedding -> Gather(weight, indices, axis=0). padding_idx and scale_grad_by_freq only
// affect gradients; max_norm renormalizes in place (aten::embedding_renorm_), not handled here.
#include <torch2onnx/plugin.hpp>

using namespace t2o;

// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)
T2O_SYMBOLIC("aten::embedding", 9) {
  ctx.set_output(0, ctx.op("Gather", {ctx.input(0), ctx.input(1)}, {Attr::i("axis", 0)}));
}
