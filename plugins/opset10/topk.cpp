// aten::topk at opset 10: TopK takes k as an input from opset 10 (k and dynamic axis sizes may be computed at run time).
// The shared code and the form per opset are in common/sorting.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/sorting.hpp"

T2O_SYMBOLIC("aten::topk", 10) { t2o::pack::topk_symbolic(ctx); }
