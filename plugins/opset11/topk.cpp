// aten::topk at opset 11: TopK gains largest/sorted attributes and index tie-breaking (stable) at opset 11.
// The shared code and the form per opset are in common/sorting.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/sorting.hpp"

T2O_SYMBOLIC("aten::topk", 11) { t2o::pack::topk_symbolic(ctx); }
