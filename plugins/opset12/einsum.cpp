// aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Einsum (exists from opset
// 12; no earlier form). `path` is only a contraction-order hint and is dropped.
#include <torch2onnx/plugin.hpp>

#include <cctype>
#include <string>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::einsum", 12) {
  Value eq = ctx.input(0), list = ctx.input(1);
  if (!eq.is_const()) unsupported("aten::einsum: equation computed at run time");
  if (list.kind() != T2O_KIND_LIST) unsupported("aten::einsum: operands are not a list known to the exporter");
  std::string equation;
  for (char c : eq.to_string())
    if (!std::isspace((unsigned char)c)) equation += c;  // PyTorch allows spaces; keep ONNX's grammar strict
  std::vector<Value> operands;
  t2o_dtype dt = output_dtype(ctx, 0, T2O_DTYPE_UNDEFINED);
  for (const Value& v : list.items()) {
    if (!v.is_tensor()) unsupported("aten::einsum: an operand is not a tensor");
    // Operands of mixed dtypes are promoted by PyTorch; Einsum needs one dtype.
    operands.push_back(dt == T2O_DTYPE_UNDEFINED ? ctx.as_onnx(v) : to_dtype(ctx, v, dt));
  }
  ctx.set_output(0, ctx.op("Einsum", operands, {Attr::s("equation", equation)}));
}
