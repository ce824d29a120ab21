// aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Einsum (exists from opset
// 12; no earlier form). `path` is only a contraction-order hint and is dropped.
// Einsum's kernels (ONNX Runtime) take float16/float/double and int32/int64 only, while PyTorch
// takes bool and 8/16-bit integers too (a transpose, a diagonal, an elementwise product of bools; a
// sum over an index gives int64 there). Those operands are computed in int64 and the result cast to
// PyTorch's dtype, as torch.onnx does for bool: a product or sum of bools that is nonzero is true, and
// 8/16-bit sums wrap as PyTorch's do (the cast keeps the low bits). bfloat16 is computed in float.
#include <torch2onnx/plugin.hpp>

#include <cctype>
#include <string>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// The dtype Einsum computes in for a result of dtype `dt`.
t2o_dtype einsum_work_dtype(t2o_dtype dt) {
  switch (dt) {
    case T2O_DTYPE_BOOL:
    case T2O_DTYPE_UINT8:
    case T2O_DTYPE_INT8:
    case T2O_DTYPE_INT16: return T2O_DTYPE_INT64;
    case T2O_DTYPE_BFLOAT16: return T2O_DTYPE_FLOAT;
    default: return dt;
  }
}

}  // namespace

T2O_SYMBOLIC("aten::einsum", 12) {
  Value eq = ctx.input(0), list = ctx.input(1);
  if (!eq.is_const()) unsupported("aten::einsum: equation computed at run time");
  if (list.kind() != T2O_KIND_LIST) unsupported("aten::einsum: operands are not a list known to the exporter");
  std::string equation;
  for (char c : eq.to_string())
    if (!std::isspace((unsigned char)c)) equation += c;  // PyTorch allows spaces; keep ONNX's grammar strict
  // PyTorch's result dtype, from the example run (operands of mixed dtypes are promoted by PyTorch;
  // Einsum needs one dtype).
  t2o_dtype dt = output_dtype(ctx, 0, T2O_DTYPE_UNDEFINED);
  if (dt == T2O_DTYPE_UNDEFINED)
    for (const Value& v : list.items())
      if (v.is_tensor() && v.dtype() != T2O_DTYPE_UNDEFINED) dt = v.dtype();
  if (dt == T2O_DTYPE_UNDEFINED) unsupported("aten::einsum: operands of unknown dtype");
  t2o_dtype work = einsum_work_dtype(dt);
  std::vector<Value> operands;
  for (const Value& v : list.items()) {
    if (!v.is_tensor()) unsupported("aten::einsum: an operand is not a tensor");
    operands.push_back(to_dtype(ctx, v, work));
  }
  Value y = ctx.op("Einsum", operands, {Attr::s("equation", equation)});
  ctx.set_output(0, work == dt ? y : ctx.op("Cast", {y}, {Attr::i("to", dt)}));
}
