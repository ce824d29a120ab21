// aten::sort / aten::argsort at opset 11, as TopK with k = the size of dim: TopK gains largest/sorted attributes and index tie-breaking (stable) at opset 11.
// The shared code and the form per opset are in common/sorting.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/sorting.hpp"

T2O_SYMBOLIC("aten::sort", 11) { t2o::pack::sort_symbolic(ctx, false); }
T2O_SYMBOLIC("aten::argsort", 11) { t2o::pack::sort_symbolic(ctx, true); }
