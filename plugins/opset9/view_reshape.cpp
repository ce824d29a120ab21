// aten::view, aten::reshape, aten::view_as, aten::reshape_as -> Reshape (the size-list forms are in
// common/reshape.hpp, with why view(dtype) is refused).
#include <torch2onnx/plugin.hpp>

#include "common/reshape.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void reshape_as(Ctx& ctx) {
  Value x = ctx.input(0), other = ctx.input(1);
  Value shape = other.has_static_shape() ? ctx.const_i64(other.dims()) : ctx.op("Shape", {other});
  ctx.set_output(0, ctx.op("Reshape", {x, shape}));
}

}  // namespace

T2O_SYMBOLIC("aten::view", 9) { reshape_symbolic(ctx); }
T2O_SYMBOLIC("aten::reshape", 9) { reshape_symbolic(ctx); }
// _reshape_copy(self, size) (PyTorch 2.x aten IR): a reshape that always copies, the same values.
T2O_SYMBOLIC("aten::_reshape_copy", 9) { reshape_symbolic(ctx); }
T2O_SYMBOLIC("aten::view_as", 9) { reshape_as(ctx); }
T2O_SYMBOLIC("aten::reshape_as", 9) { reshape_as(ctx); }
