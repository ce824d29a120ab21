// aten::view, aten::reshape, aten::view_as, aten::reshape_as -> Reshape.
// A constant size list is one initializer; run-time items (from aten::size on dynamic axes) are
// assembled with Unsqueeze + Concat (common/values.hpp). PyTorch's 0 means an empty axis while
// ONNX Reshape's 0 copies the input dim: a literal 0 needs allowzero=1 (opset 14).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void reshape(Ctx& ctx) {
  Value x = ctx.input(0), size = ctx.input(1);
  if (size.kind() == T2O_KIND_INT) unsupported(ctx.kind() + ": view(dtype) (reinterpreting the element type)");
  std::vector<Attr> attrs;
  bool has_zero = false;
  if (size.kind() == T2O_KIND_LIST) {
    for (const Value& item : size.items())
      if (item.is_const() && item.to_int() == 0) has_zero = true;
  } else if (size.is_const()) {
    for (auto v : size.to_ints()) has_zero = has_zero || v == 0;
  }
  if (has_zero) {
    require(ctx, feature::kReshapeAllowZero, "a size of 0 (empty axis)");
    attrs.push_back(Attr::i("allowzero", 1));
  }
  ctx.set_output(0, ctx.op("Reshape", {x, int_list_tensor(ctx, size)}, attrs));
}

void reshape_as(Ctx& ctx) {
  Value x = ctx.input(0), other = ctx.input(1);
  Value shape = other.has_static_shape() ? ctx.const_i64(other.dims()) : ctx.op("Shape", {other});
  ctx.set_output(0, ctx.op("Reshape", {x, shape}));
}

}  // namespace

T2O_SYMBOLIC("aten::view", 9) { reshape(ctx); }
T2O_SYMBOLIC("aten::reshape", 9) { reshape(ctx); }
T2O_SYMBOLIC("aten::view_as", 9) { reshape_as(ctx); }
T2O_SYMBOLIC("aten::reshape_as", 9) { reshape_as(ctx); }
