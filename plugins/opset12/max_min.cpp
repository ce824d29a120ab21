// aten::max / aten::min at opset 12: elementwise Max/Min accept integer types from 12 (before,
// integers go through Greater/Less + Where). Shared code in common/max_min.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/max_min.hpp"

T2O_SYMBOLIC("aten::max", 12) { t2o::pack::max_min(ctx, true); }
T2O_SYMBOLIC("aten::min", 12) { t2o::pack::max_min(ctx, false); }
// maximum / minimum(self, other): the elementwise max.other / min.other.
T2O_SYMBOLIC("aten::maximum", 12) { t2o::pack::max_min(ctx, true); }
T2O_SYMBOLIC("aten::minimum", 12) { t2o::pack::max_min(ctx, false); }
