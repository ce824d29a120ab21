// aten::index_copy / index_copy_ -> Scatter (opset 9-10) / ScatterElements (11+). Body in
// common/index_add.hpp; aten::index_add needs ScatterElements' reduction: opset16/index_add.cpp.
#include <torch2onnx/plugin.hpp>

#include "common/index_add.hpp"

T2O_SYMBOLIC("aten::index_copy", 9) { t2o::pack::index_scatter_symbolic(ctx, false); }
T2O_SYMBOLIC("aten::index_copy_", 9) { t2o::pack::index_scatter_symbolic(ctx, false); }
