// The split family (split, split_with_sizes, chunk, unbind and unsafe_ variants) -> Split. From
// opset 18 equal pieces (the last possibly smaller, as torch.chunk and torch.split with one size
// give them) are Split's `num_outputs` instead of a sizes input; other sizes keep opset 13's form.
// Body in common/shape_ops.hpp (split_form chooses by ctx.opset()).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

T2O_SYMBOLIC("aten::split", 18) { t2o::pack::split_symbolic(ctx, true); }
T2O_SYMBOLIC("aten::split_with_sizes", 18) { t2o::pack::split_symbolic(ctx, true); }
T2O_SYMBOLIC("aten::unsafe_split", 18) { t2o::pack::split_symbolic(ctx, true); }
T2O_SYMBOLIC("aten::unsafe_split_with_sizes", 18) { t2o::pack::split_symbolic(ctx, true); }
T2O_SYMBOLIC("aten::chunk", 18) { t2o::pack::split_symbolic(ctx, true); }
T2O_SYMBOLIC("aten::unsafe_chunk", 18) { t2o::pack::split_symbolic(ctx, true); }
T2O_SYMBOLIC("aten::unbind", 18) { t2o::pack::split_symbolic(ctx, true); }
