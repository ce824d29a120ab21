// aten::sort / aten::argsort at opset 10, as TopK with k = the size of dim: TopK takes k as an input from opset 10 (k and dynamic axis sizes may be computed at run time).
// The shared code and the form per opset are in common/sorting.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/sorting.hpp"

T2O_SYMBOLIC("aten::sort", 10) { t2o::pack::sort_symbolic(ctx, false); }
T2O_SYMBOLIC("aten::argsort", 10) { t2o::pack::sort_symbolic(ctx, true); }
