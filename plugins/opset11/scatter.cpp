// aten::scatter -> ScatterElements (opset 11; Scatter is deprecated). Body in common/shape_ops.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

T2O_SYMBOLIC("aten::scatter", 11) { t2o::pack::scatter_symbolic(ctx, "ScatterElements", false); }
