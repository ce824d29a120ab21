// aten::scatter (src tensor or scalar value) -> Scatter (opsets 9-10). Body in common/shape_ops.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

T2O_SYMBOLIC("aten::scatter", 9) { t2o::pack::scatter_symbolic(ctx, "Scatter", false); }
