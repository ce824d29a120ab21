// Unique (new in opset 11), sorted:
//   aten::_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False)
//       -> (Tensor, Tensor, Tensor)                        torch.unique without dim
//   aten::_unique(Tensor self, bool sorted=True, bool return_inverse=False) -> (Tensor, Tensor)
//   aten::unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False,
//       bool return_counts=False) -> (Tensor, Tensor, Tensor)
// Without dim the input is flattened and the inverse indices reshaped to its shape; with dim,
// Unique's `axis` compares whole slices lexicographically, as PyTorch does. Outputs not asked for
// are empty int64 tensors, as PyTorch returns them. sorted=False without dim is refused: PyTorch's
// CPU kernel then returns its hash-table order, which no ONNX op reproduces (unique_dim sorts
// either way). Element types ONNX Runtime's Unique lacks are computed in int64 / float.
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

t2o_dtype unique_dtype(t2o_dtype d) {
  if (d == T2O_DTYPE_FLOAT || d == T2O_DTYPE_DOUBLE || d == T2O_DTYPE_INT64 || d == T2O_DTYPE_INT8) return d;
  if (is_float_dtype(d)) return T2O_DTYPE_FLOAT;
  return T2O_DTYPE_INT64;  // bool, uint8, int16, int32: exact in int64
}

void unique(Ctx& ctx, bool has_dim) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  int32_t first_flag = has_dim ? 2 : 1;
  bool sorted = ctx.input(first_flag).to_bool();
  bool want_inverse = ctx.input(first_flag + 1).to_bool();
  bool want_counts = ctx.num_inputs() > first_flag + 2 && ctx.input(first_flag + 2).to_bool();
  if (!has_dim && !sorted)
    unsupported(ctx.kind() + ": sorted=False (PyTorch's CPU kernel returns its hash-table order, which ONNX Unique "
                "cannot reproduce); use sorted=True");
  t2o_dtype dt = x.dtype(), work = unique_dtype(dt);
  Value in = cast_to(ctx, ctx.as_onnx(x), work);
  std::vector<Attr> attrs{Attr::i("sorted", 1)};
  if (has_dim) {
    if (!ctx.input(1).is_const()) unsupported(ctx.kind() + ": argument 'dim' computed at run time");
    attrs.push_back(Attr::i("axis", normalize_axis(ctx, ctx.input(1).to_int(), r)));
  } else {
    in = ctx.op("Reshape", {in, ctx.const_i64({-1})});
  }
  std::vector<Value> out = ctx.op_n("Unique", {in}, 4, attrs);
  Value y = out[0];
  if (work != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
  ctx.set_output(0, y);
  Value empty = ctx.tensor(T2O_DTYPE_INT64, {0}, nullptr, 0);
  Value inverse = out[2];
  if (want_inverse && !has_dim) inverse = ctx.op("Reshape", {inverse, ctx.op("Shape", {ctx.as_onnx(x)})});
  ctx.set_output(1, want_inverse ? inverse : empty);
  if (ctx.num_outputs() > 2) ctx.set_output(2, want_counts ? out[3] : empty);
}

}  // namespace

T2O_SYMBOLIC("aten::_unique2", 11) { unique(ctx, false); }
T2O_SYMBOLIC("aten::_unique", 11) { unique(ctx, false); }
T2O_SYMBOLIC("aten::unique_dim", 11) { unique(ctx, true); }
