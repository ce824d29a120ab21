// aten::squeeze (all size-1 axes, or the named ones): Squeeze with axes as an input (opset 13).
// Body in common/shape_ops.hpp (shared with the other opset's form).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

T2O_SYMBOLIC("aten::squeeze", 13) { t2o::pack::squeeze_symbolic(ctx, true); }
// squeeze_copy(self, dim / dims) (PyTorch 2.x aten IR; .dims from 2.0): the same values.
T2O_SYMBOLIC("aten::squeeze_copy", 13) { t2o::pack::squeeze_symbolic(ctx, true); }
