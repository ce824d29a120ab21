// aten::unsqueeze(self, dim): Unsqueeze with axes as an input (opset 13).
// Body in common/shape_ops.hpp (shared with the other opset's form).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

T2O_SYMBOLIC("aten::unsqueeze", 13) { t2o::pack::unsqueeze_symbolic(ctx, true); }
