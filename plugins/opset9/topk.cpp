// aten::topk at opset 9: TopK takes k as an attribute and returns the largest k only (smallest: negated input).
// The shared code and the form per opset are in common/sorting.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/sorting.hpp"

T2O_SYMBOLIC("aten::topk", 9) { t2o::pack::topk_symbolic(ctx); }
