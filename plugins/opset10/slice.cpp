// aten::slice (tensors and lists) and aten::narrow -> Slice with starts/ends/steps as inputs (opset 10), run-time bounds allowed.
// Body in common/shape_ops.hpp. INT64_MAX ends (x[a:]) pass through: ONNX clamps like Python.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

T2O_SYMBOLIC("aten::slice", 10) { t2o::pack::slice_symbolic(ctx, true); }
T2O_SYMBOLIC("aten::narrow", 10) { t2o::pack::slice_symbolic(ctx, true); }
