// aten::pixel_shuffle / aten::pixel_unshuffle -> Reshape + Transpose + Reshape (opset 9:
// DepthToSpace has only the DCR channel order, PyTorch's is CRD; SpaceToDepth's order never
// matches pixel_unshuffle, so that one keeps this form at every opset). Leading batch dims must be
// exactly one (4-D) or none (3-D). Static dims become constants (N as 0 = copied); dynamic C/H/W
// are computed from Shape(x).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// One entry of a target shape: dim `axis` of x times mul / div, or the constant `value`.
struct DimExpr {
  int64_t axis = -1, mul = 1, div = 1, value = 0;
};

Value shape_of(Ctx& ctx, const Value& x, const std::vector<DimExpr>& parts) {
  bool all_static = true;
  std::vector<int64_t> c;
  for (const auto& p : parts) {
    if (p.axis < 0) { c.push_back(p.value); continue; }
    int64_t d = x.dim((int32_t)p.axis);
    if (d < 0) { all_static = false; break; }
    c.push_back(d * p.mul / p.div);
  }
  if (all_static) return ctx.const_i64(c);
  std::vector<Value> pieces;
  for (const auto& p : parts) {
    if (p.axis < 0) { pieces.push_back(ctx.const_i64({p.value})); continue; }
    Value d = dims_tensor(ctx, x, {p.axis});
    if (p.mul != 1) d = ctx.op("Mul", {d, ctx.const_i64({p.mul})});
    if (p.div != 1) d = ctx.op("Div", {d, ctx.const_i64({p.div})});
    pieces.push_back(d);
  }
  return ctx.op("Concat", pieces, {Attr::i("axis", 0)});
}

DimExpr dim(int64_t axis, int64_t mul = 1, int64_t div = 1) { return DimExpr{axis, mul, div, 0}; }
DimExpr cst(int64_t v) { return DimExpr{-1, 1, 1, v}; }

// x is 4-D (N, C, H, W) here; the TorchScript input gives static dims.
Value shuffle(Ctx& ctx, const Value& x0, const Value& x, int64_t r, bool inverse) {
  int64_t off = x0.rank() == 3 ? -1 : 0;  // unbatched: TorchScript dims shifted by one
  auto d = [&](int64_t axis, int64_t mul = 1, int64_t div = 1) { return dim(axis + off, mul, div); };
  Value s1, s2;
  std::vector<int64_t> perm;
  if (!inverse) {  // (N, C*r*r, H, W) -> (N, C, r, r, H, W) -> (N, C, H, r, W, r) -> (N, C, H*r, W*r)
    s1 = shape_of(ctx, x0, {cst(0), d(1, 1, r * r), cst(r), cst(r), d(2), d(3)});
    perm = {0, 1, 4, 2, 5, 3};
    s2 = shape_of(ctx, x0, {cst(0), d(1, 1, r * r), d(2, r), d(3, r)});
  } else {  // (N, C, H*r, W*r) -> (N, C, H, r, W, r) -> (N, C, r, r, H, W) -> (N, C*r*r, H, W)
    s1 = shape_of(ctx, x0, {cst(0), d(1), d(2, 1, r), cst(r), d(3, 1, r), cst(r)});
    perm = {0, 1, 3, 5, 2, 4};
    s2 = shape_of(ctx, x0, {cst(0), d(1, r * r), d(2, 1, r), d(3, 1, r)});
  }
  Value y = ctx.op("Reshape", {x, s1});
  y = ctx.op("Transpose", {y}, {Attr::ints("perm", perm)});
  return ctx.op("Reshape", {y, s2});
}

void pixel_shuffle(Ctx& ctx, bool inverse) {
  Value x0 = ctx.input(0);
  int64_t r = ctx.input(1).to_int();
  int32_t rank = x0.rank();
  if (rank != 3 && rank != 4)
    unsupported(ctx.kind() + ": input rank " + std::to_string(rank) + " (only 3-D and 4-D inputs are exported)");
  if (r == 1) return ctx.set_output(0, x0);
  ctx.set_output(0, with_batch(ctx, x0, 2, [&](const Value& x) { return shuffle(ctx, x0, x, r, inverse); }));
}

}  // namespace

T2O_SYMBOLIC("aten::pixel_shuffle", 9) { pixel_shuffle(ctx, false); }
T2O_SYMBOLIC("aten::pixel_unshuffle", 9) { pixel_shuffle(ctx, true); }
