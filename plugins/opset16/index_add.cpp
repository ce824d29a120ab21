// aten::index_add / index_add_ -> ScatterElements reduction='add' (opset 16; none below: repeated
// indices must accumulate, so the host reports that the op needs opset 16). Body in
// common/index_add.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/index_add.hpp"

T2O_SYMBOLIC("aten::index_add", 16) { t2o::pack::index_scatter_symbolic(ctx, true); }
T2O_SYMBOLIC("aten::index_add_", 16) { t2o::pack::index_scatter_symbolic(ctx, true); }
