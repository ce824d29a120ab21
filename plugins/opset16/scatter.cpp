// aten::scatter with reduce="add"/"multiply" and aten::scatter_add -> ScatterElements with
// `reduction` (opset 16). Body in common/shape_ops.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

T2O_SYMBOLIC("aten::scatter", 16) { t2o::pack::scatter_symbolic(ctx, "ScatterElements", true); }
T2O_SYMBOLIC("aten::scatter_add", 16) { t2o::pack::scatter_symbolic(ctx, "ScatterElements", true); }
