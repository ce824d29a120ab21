// aten::sort / aten::argsort at opset 9, as TopK with k = the size of dim: TopK takes k as an attribute and returns the largest k only (smallest: negated input).
// The shared code and the form per opset are in common/sorting.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/sorting.hpp"

T2O_SYMBOLIC("aten::sort", 9) { t2o::pack::sort_symbolic(ctx, false); }
T2O_SYMBOLIC("aten::argsort", 9) { t2o::pack::sort_symbolic(ctx, true); }
