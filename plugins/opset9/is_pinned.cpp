// aten::is_pinned: whether the tensor lives in page-locked host memory; an ONNX model's tensors
// never do, so the constant false (branches on it fold away).
//
// is_pinned(Tensor self, Device? device=None) -> bool
#include <torch2onnx/plugin.hpp>

using namespace t2o;

T2O_SYMBOLIC("aten::is_pinned", 9) { ctx.set_output(0, ctx.make_bool(false)); }
