// aten::slice (tensors and lists) and aten::narrow -> Slice with starts/ends as attributes (steps > 1: Gather on a static axis).
// Body in common/shape_ops.hpp. INT64_MAX ends (x[a:]) pass through: ONNX clamps like Python.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

T2O_SYMBOLIC("aten::slice", 9) { t2o::pack::slice_symbolic(ctx, false); }
T2O_SYMBOLIC("aten::narrow", 9) { t2o::pack::slice_symbolic(ctx, false); }
