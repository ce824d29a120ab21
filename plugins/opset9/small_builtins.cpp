// Small TorchScript builtins:
//   prim::data(Tensor(a) a) -> Tensor(a)                           identity (no autograd in ONNX)
//   aten::resolve_conj(Tensor(a) self) -> Tensor(a)                identity (no lazy conj/neg bits)
//   aten::resolve_neg(Tensor(a) self) -> Tensor(a)                 identity
//   aten::_shape_as_tensor(Tensor self) -> Tensor                  Shape (int64, 1-D)
//   aten::_dim_arange(Tensor like, int dim) -> Tensor              arange(like.size(dim)), int64:
//                                                                  a constant on a static dim, else
//                                                                  NonZero of ones (opset 9 has no Range)
//   aten::copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor
//                                                                  (copy_ of a whole tensor made
//                                                                  functional): src cast to self's
//                                                                  dtype, broadcast to self's shape
//   aten::IntImplicit(Tensor a) -> int                             the 0-d int tensor as a number
//   aten::is_floating_point(Tensor self) -> bool                   from the example run's dtype
//   prim::tolist(...) -> t[]                                       1-D tensor of static length: its
//                                                                  elements as run-time numbers
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void identity(Ctx& ctx) { ctx.set_output(0, ctx.input(0)); }

}  // namespace

T2O_SYMBOLIC("prim::data", 9) { identity(ctx); }
T2O_SYMBOLIC("aten::resolve_conj", 9) { identity(ctx); }
T2O_SYMBOLIC("aten::resolve_neg", 9) { identity(ctx); }

T2O_SYMBOLIC("aten::_shape_as_tensor", 9) { ctx.set_output(0, ctx.op("Shape", {ctx.input(0)})); }

T2O_SYMBOLIC("aten::_dim_arange", 9) {
  Value like = ctx.input(0);
  known_rank(ctx, like);
  if (!ctx.input(1).is_const()) unsupported("aten::_dim_arange: argument 'dim' must be constant");
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), like.rank());
  int64_t n = like.dim((int32_t)axis);
  if (n >= 0) {
    std::vector<int64_t> values;
    for (int64_t i = 0; i < n; ++i) values.push_back(i);
    return ctx.set_output(0, ctx.const_i64(values));
  }
  // Positions of the ones in a length-n vector: [1, n] from NonZero, squeezed to [n].
  Value ones = ctx.op("ConstantOfShape", {dims_of(ctx, like, {axis})}, {Attr::tensor("value", ctx.const_i64({1}))});
  ctx.set_output(0, squeeze(ctx, ctx.op("NonZero", {ones}), {0}));
}

T2O_SYMBOLIC("aten::copy", 9) {
  Value self = ctx.input(0), src = ctx.input(1);
  Value y = to_dtype(ctx, src, self.dtype());
  if (!(src.kind() == T2O_KIND_TENSOR && src.rank() == self.rank() && src.has_static_shape() &&
        self.has_static_shape() && src.dims() == self.dims()))
    y = ctx.op("Expand", {y, shape_of(ctx, self)});
  ctx.set_output(0, y);
}

T2O_SYMBOLIC("aten::IntImplicit", 9) {
  Value t = ctx.input(0);
  if (t.kind() != T2O_KIND_TENSOR) return ctx.set_output(0, t);
  if (t.is_const()) return ctx.set_output(0, ctx.make_int(t.to_int()));
  ctx.set_output(0, ctx.make_dynamic_scalar(cast_to(ctx, ctx.as_onnx(t), T2O_DTYPE_INT64), T2O_KIND_INT));
}

T2O_SYMBOLIC("aten::is_floating_point", 9) { ctx.set_output(0, ctx.make_bool(is_float_dtype(ctx.input(0).dtype()))); }

// prim::tolist(Tensor self, int dim, int elem_type): the element kind comes from the output type.
T2O_SYMBOLIC("prim::tolist", 9) {
  Value x = ctx.input(0);
  if (x.rank() != 1 || x.dim(0) < 0)
    unsupported("prim::tolist: only 1-D tensors of static length (rank " + std::to_string(x.rank()) + ")");
  t2o_dtype dt = x.dtype();
  t2o_kind kind = is_float_dtype(dt) ? T2O_KIND_FLOAT : dt == T2O_DTYPE_BOOL ? T2O_KIND_BOOL : T2O_KIND_INT;
  std::vector<Value> items;
  for (int64_t i = 0; i < x.dim(0); ++i) {
    Value e = typed(ctx, ctx.op("Gather", {x, ctx.scalar_i64(i)}, {Attr::i("axis", 0)}), dt, 0);
    items.push_back(ctx.make_dynamic_scalar(e, kind));
  }
  ctx.set_output(0, ctx.make_list(items));
}
