// aten::_shape_as_tensor -> Shape: the sizes as a 1-D int64 tensor (what tracing records for
// x.shape used as a tensor, e.g. in torchvision's detection transforms).
#include <torch2onnx/plugin.hpp>

using namespace t2o;

// aten::_shape_as_tensor(Tensor self) -> Tensor
T2O_SYMBOLIC("aten::_shape_as_tensor", 9) { ctx.set_output(0, ctx.op("Shape", {ctx.input(0)})); }
