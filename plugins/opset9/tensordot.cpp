// aten::tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor
// Transpose so the contracted axes are last in self and first in other, Reshape both to 2-D
// (free x contracted, contracted x free), MatMul, and Reshape to self's free dims followed by
// other's. Dynamic dims are read with Shape at run time. (torch.tensordot with an int `dims`
// reaches TorchScript as these lists.)
#include <torch2onnx/plugin.hpp>

#include <algorithm>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

std::vector<int64_t> free_axes(int64_t rank, const std::vector<int64_t>& contracted) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i)
    if (std::find(contracted.begin(), contracted.end(), i) == contracted.end()) out.push_back(i);
  return out;
}

// The product of dims `axes` of x as a 1-element int64 tensor (constant when static).
Value dims_product(Ctx& ctx, const Value& x, const std::vector<int64_t>& axes) {
  int64_t p = 1;
  for (auto a : axes) {
    int64_t d = x.dim((int32_t)a);
    if (d < 0) return reduce(ctx, "ReduceProd", dims_tensor(ctx, x, axes), {0}, true);
    p *= d;
  }
  return ctx.const_i64({p});
}

}  // namespace

T2O_SYMBOLIC("aten::tensordot", 9) {
  Value a = ctx.input(0), b = ctx.input(1);
  int64_t ra = a.rank(), rb = b.rank();
  if (ra < 0 || rb < 0) unsupported("aten::tensordot: input ranks unknown");
  if (!ctx.input(2).is_const() || !ctx.input(3).is_const())
    unsupported("aten::tensordot: arguments 'dims_self'/'dims_other' must be constant");
  std::vector<int64_t> da = normalize_axes(ctx, ctx.input(2).to_ints(), ra, "dims_self");
  std::vector<int64_t> db = normalize_axes(ctx, ctx.input(3).to_ints(), rb, "dims_other");
  if (da.size() != db.size()) fail("aten::tensordot: dims_self and dims_other differ in length");
  std::vector<int64_t> fa = free_axes(ra, da), fb = free_axes(rb, db);
  std::vector<int64_t> pa = fa, pb = db;
  pa.insert(pa.end(), da.begin(), da.end());
  pb.insert(pb.end(), fb.begin(), fb.end());
  Value xa = ctx.as_onnx(a), xb = ctx.as_onnx(b);
  // The contracted size from whichever side knows it statically.
  Value k = dims_product(ctx, a, da);
  if (!k.is_const()) k = dims_product(ctx, b, db);
  Value minus_one = ctx.const_i64({-1});
  Value a2 = ctx.op("Reshape", {ctx.op("Transpose", {xa}, {Attr::ints("perm", pa)}),
                                ctx.op("Concat", {minus_one, k}, {Attr::i("axis", 0)})});
  Value b2 = ctx.op("Reshape", {ctx.op("Transpose", {xb}, {Attr::ints("perm", pb)}),
                                ctx.op("Concat", {k, minus_one}, {Attr::i("axis", 0)})});
  Value y = ctx.op("MatMul", {a2, b2});
  std::vector<Value> shape_parts;
  if (!fa.empty()) shape_parts.push_back(dims_of(ctx, a, fa));
  if (!fb.empty()) shape_parts.push_back(dims_of(ctx, b, fb));
  Value shape = shape_parts.empty() ? ctx.const_i64({})
                : shape_parts.size() == 1 ? shape_parts[0]
                                          : ctx.op("Concat", shape_parts, {Attr::i("axis", 0)});
  ctx.set_output(0, ctx.op("Reshape", {y, shape}));
}
