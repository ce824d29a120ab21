// The deprecated aten::_cast_<Type>(self, non_blocking) ops: Cast to that type (non_blocking
// has no meaning in ONNX). ATen has exactly these eight (torch.onnx also names _Bool, _BFloat16,
// _ComplexFloat and _ComplexDouble, which no TorchScript graph can hold).
//
// _cast_Byte(Tensor self, bool non_blocking=False) -> Tensor   (and _Char, _Short, _Int, _Long,
// _Half, _Float, _Double)
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void cast(Ctx& ctx, t2o_dtype to) { ctx.set_output(0, to_dtype(ctx, ctx.input(0), to)); }

}  // namespace

T2O_SYMBOLIC("aten::_cast_Byte", 9) { cast(ctx, T2O_DTYPE_UINT8); }
T2O_SYMBOLIC("aten::_cast_Char", 9) { cast(ctx, T2O_DTYPE_INT8); }
T2O_SYMBOLIC("aten::_cast_Short", 9) { cast(ctx, T2O_DTYPE_INT16); }
T2O_SYMBOLIC("aten::_cast_Int", 9) { cast(ctx, T2O_DTYPE_INT32); }
T2O_SYMBOLIC("aten::_cast_Long", 9) { cast(ctx, T2O_DTYPE_INT64); }
T2O_SYMBOLIC("aten::_cast_Half", 9) { cast(ctx, T2O_DTYPE_FLOAT16); }
T2O_SYMBOLIC("aten::_cast_Float", 9) { cast(ctx, T2O_DTYPE_FLOAT); }
T2O_SYMBOLIC("aten::_cast_Double", 9) { cast(ctx, T2O_DTYPE_DOUBLE); }
