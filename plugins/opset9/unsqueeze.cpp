// aten::unsqueeze(self, dim): Unsqueeze with axes as an attribute.
// Body in common/shape_ops.hpp (shared with the other opset's form).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

T2O_SYMBOLIC("aten::unsqueeze", 9) { t2o::pack::unsqueeze_symbolic(ctx, false); }
