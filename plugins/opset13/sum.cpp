// aten::sum at opset 13: ReduceSum takes its axes as an input (common/forms.hpp `reduce` emits
// that form from 13); the argument handling is the same as the base pack's.
#include <torch2onnx/plugin.hpp>

#include "common/reduce.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::sum", 13) { reduce_symbolic(ctx, "ReduceSum"); }
