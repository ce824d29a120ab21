// aten::view / aten::reshape with a size list -> Reshape (opset9/view_reshape.cpp).
// aten::view.dtype (view(dtype), BitCast-26's match) never reaches a converter with libtorch 1.13:
// TorchScript cannot compile it, and a traced one is saved as torch.view(x, <dtype number>), which
// loads as view(size=[number]); that node is a reshape and is converted as one. A view.dtype node
// is refused.
// A constant size list is one initializer; run-time items (from aten::size on dynamic axes) are
// assembled with Unsqueeze + Concat (common/values.hpp). PyTorch's 0 means an empty axis while
// ONNX Reshape's 0 copies the input dim: a literal 0 needs allowzero=1 (opset 14).
// Header-only, SDK only.
#ifndef TORCH2ONNX_PACK_COMMON_RESHAPE_HPP
#define TORCH2ONNX_PACK_COMMON_RESHAPE_HPP

#include <torch2onnx/plugin.hpp>

#include <string>
#include <vector>

#include "forms.hpp"
#include "values.hpp"

namespace t2o {
namespace pack {

// aten::view(Tensor(a) self, SymInt[] size) / aten::reshape(Tensor(a) self, SymInt[] shape)
inline void reshape_symbolic(Ctx& ctx) {
  Value x = ctx.input(0), size = ctx.input(1);
  if (size.kind() == T2O_KIND_INT && std::string(ctx.host()->node_schema(ctx.raw())).find("ScalarType dtype") != std::string::npos)
    unsupported(ctx.kind() + ": view(dtype) (reinterpreting the element type)");
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

}  // namespace pack
}  // namespace t2o

#endif  // TORCH2ONNX_PACK_COMMON_RESHAPE_HPP
