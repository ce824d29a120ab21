// aten::mean / aten::mean.dim(self, dim, keepdim, dtype) -> ReduceMean;
// aten::sum / aten::sum.dim_IntList -> ReduceSum (axes become an input at 13: opset13/sum.cpp).
// The shared argument handling lives in common/reduce.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/reduce.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::mean", 9) { reduce_symbolic(ctx, "ReduceMean"); }
T2O_SYMBOLIC("aten::sum", 9) { reduce_symbolic(ctx, "ReduceSum"); }
