// aten::nonzero / argwhere(self) -> [N, rank] int64 (Transpose of NonZero's [rank, N]),
// aten::nonzero_static(self, *, size, fill_value=-1) (PyTorch 2.1+) -> the first `size` rows of it,
// padded with rows of fill_value (Concat of a constant block, then Slice),
// aten::nonzero_numpy(self) (nonzero(as_tuple=True)) -> one [N] tensor per axis, and
// aten::masked_select(self, mask) -> the 1-D elements of self (broadcast with mask) where mask.
#include <torch2onnx/plugin.hpp>

#include "common/constants.hpp"
#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// NonZero of x: [rank, N]. ONNX Runtime's NonZero covers bool, uint8, int32, int64 and float:
// other types are tested as x != 0 through bool.
Value nonzero_rows(Ctx& ctx, const Value& x) {
  t2o_dtype dt = x.dtype();
  Value in = ctx.as_onnx(x);
  if (dt != T2O_DTYPE_BOOL && dt != T2O_DTYPE_UINT8 && dt != T2O_DTYPE_INT32 && dt != T2O_DTYPE_INT64 &&
      dt != T2O_DTYPE_FLOAT)
    in = cast_to(ctx, in, T2O_DTYPE_BOOL);
  return ctx.op("NonZero", {in});
}

void nonzero(Ctx& ctx) {
  Value x = ctx.input(0);
  if (x.rank() == 0) unsupported(ctx.kind() + ": a 0-d input");
  ctx.set_output(0, ctx.op("Transpose", {nonzero_rows(ctx, x)}, {Attr::ints("perm", {1, 0})}));
}

}  // namespace

T2O_SYMBOLIC("aten::nonzero", 9) { nonzero(ctx); }
T2O_SYMBOLIC("aten::argwhere", 9) { nonzero(ctx); }

// nonzero_static(Tensor self, *, SymInt size, int fill_value=-1) -> Tensor [size, rank]
T2O_SYMBOLIC("aten::nonzero_static", 9) {
  Value x = ctx.input(0);
  const int64_t r = known_rank(ctx, x);
  if (!ctx.input(1).is_const()) unsupported("aten::nonzero_static: argument 'size' is computed at run time");
  const int64_t size = ctx.input(1).to_int(), fill = ctx.input(2).to_int();
  if (size < 0) fail("aten::nonzero_static: argument 'size'=" + std::to_string(size) + " is negative");
  if (r == 0) return ctx.set_output(0, constant_of(ctx, T2O_DTYPE_INT64, {size, 0}, {}, {}));  // no coordinates
  Value found = ctx.op("Transpose", {nonzero_rows(ctx, x)}, {Attr::ints("perm", {1, 0})});  // [N, r]
  Value filler = constant_of(ctx, T2O_DTYPE_INT64, {size, r}, {}, std::vector<int64_t>((size_t)(size * r), fill));
  Value both = ctx.op("Concat", {found, filler}, {Attr::i("axis", 0)});
  ctx.set_output(0, slice(ctx, both, {0}, {0}, {size}));
}

T2O_SYMBOLIC("aten::nonzero_numpy", 9) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  if (r < 1) unsupported("aten::nonzero_numpy: input of rank " + std::to_string(r));
  Value rows = nonzero_rows(ctx, x);
  std::vector<Value> out;
  for (int64_t i = 0; i < r; ++i) out.push_back(ctx.op("Gather", {rows, ctx.scalar_i64(i)}, {Attr::i("axis", 0)}));
  ctx.set_output(0, ctx.make_list(out));
}

T2O_SYMBOLIC("aten::masked_select", 9) {
  Value x = ctx.input(0), mask = ctx.input(1);
  Value data = ctx.as_onnx(x), m = ctx.as_onnx(mask);
  known_rank(ctx, x);
  known_rank(ctx, mask);
  if (!(x.has_static_shape() && mask.has_static_shape() && x.dims() == mask.dims())) {
    // Expand broadcasts both ways: x to broadcast(x, mask), then mask to that shape.
    data = ctx.op("Expand", {data, ctx.op("Shape", {m})});
    m = ctx.op("Expand", {m, ctx.op("Shape", {data})});
  }
  Value flat = ctx.op("Reshape", {data, ctx.const_i64({-1})});
  Value flat_mask = ctx.op("Reshape", {m, ctx.const_i64({-1})});
  Value idx = squeeze(ctx, ctx.op("NonZero", {flat_mask}), {0});
  ctx.set_output(0, ctx.op("Gather", {flat, idx}, {Attr::i("axis", 0)}));
}
