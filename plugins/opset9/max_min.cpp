// aten::max / aten::min (every element, .dim with indices, elementwise .other) and aten::argmax /
// argmin. The code is in common/max_min.hpp (Max/Min on integers from opset 12: a forms feature).
#include <torch2onnx/plugin.hpp>

#include "common/max_min.hpp"

T2O_SYMBOLIC("aten::max", 9) { t2o::pack::max_min(ctx, true); }
T2O_SYMBOLIC("aten::min", 9) { t2o::pack::max_min(ctx, false); }
// maximum / minimum(self, other): the elementwise max.other / min.other.
T2O_SYMBOLIC("aten::maximum", 9) { t2o::pack::max_min(ctx, true); }
T2O_SYMBOLIC("aten::minimum", 9) { t2o::pack::max_min(ctx, false); }
T2O_SYMBOLIC("aten::argmax", 9) { t2o::pack::arg_symbolic(ctx, "ArgMax"); }
T2O_SYMBOLIC("aten::argmin", 9) { t2o::pack::arg_symbolic(ctx, "ArgMin"); }
