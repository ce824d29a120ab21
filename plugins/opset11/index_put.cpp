// aten::index_put / index_put_ -> ScatterND (opset 11; none below: the host reports that the op
// needs opset 11). accumulate=True needs ScatterND's reduction (opset16/index_put.cpp). Body in
// common/index_put.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/index_put.hpp"

T2O_SYMBOLIC("aten::index_put", 11) { t2o::pack::index_put_symbolic(ctx, false); }
T2O_SYMBOLIC("aten::index_put_", 11) { t2o::pack::index_put_symbolic(ctx, false); }
