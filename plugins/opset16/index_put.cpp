// aten::index_put / index_put_ with accumulate=True -> ScatterND reduction='add' (opset 16).
// Body in common/index_put.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/index_put.hpp"

T2O_SYMBOLIC("aten::index_put", 16) { t2o::pack::index_put_symbolic(ctx, true); }
T2O_SYMBOLIC("aten::index_put_", 16) { t2o::pack::index_put_symbolic(ctx, true); }
