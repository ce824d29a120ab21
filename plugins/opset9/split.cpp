// The split family (split, split_with_sizes, chunk, unbind and unsafe_ variants) -> Split with
// the sizes as an attribute; unbind squeezes each part. Sizes are computed at export time, so
// equal-size splits need the split axis to be static. Body in common/shape_ops.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

T2O_SYMBOLIC("aten::split", 9) { t2o::pack::split_symbolic(ctx, false); }
T2O_SYMBOLIC("aten::split_with_sizes", 9) { t2o::pack::split_symbolic(ctx, false); }
T2O_SYMBOLIC("aten::unsafe_split", 9) { t2o::pack::split_symbolic(ctx, false); }
T2O_SYMBOLIC("aten::unsafe_split_with_sizes", 9) { t2o::pack::split_symbolic(ctx, false); }
T2O_SYMBOLIC("aten::chunk", 9) { t2o::pack::split_symbolic(ctx, false); }
T2O_SYMBOLIC("aten::unsafe_chunk", 9) { t2o::pack::split_symbolic(ctx, false); }
T2O_SYMBOLIC("aten::unbind", 9) { t2o::pack::split_symbolic(ctx, false); }
