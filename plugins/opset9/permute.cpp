// aten::permute(self, dims) and aten::transpose(self, dim0, dim1) -> Transpose.
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::permute", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  Value dims = ctx.input(1);
  if (!all_const(dims)) unsupported("aten::permute: argument 'dims' computed at run time");
  std::vector<int64_t> perm = normalize_axes(ctx, dims.to_ints(), r);
  if ((int64_t)perm.size() != r) fail("aten::permute: dims " + str(perm) + " do not match rank " + std::to_string(r));
  ctx.set_output(0, ctx.op("Transpose", {x}, {Attr::ints("perm", perm)}));
}

T2O_SYMBOLIC("aten::transpose", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  int64_t a = normalize_axis(ctx, ctx.input(1).to_int(), r), b = normalize_axis(ctx, ctx.input(2).to_int(), r);
  if (a == b || r < 2) return ctx.set_output(0, x);
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < r; ++i) perm.push_back(i);
  std::swap(perm[a], perm[b]);
  ctx.set_output(0, ctx.op("Transpose", {x}, {Attr::ints("perm", perm)}));
}

// aten::movedim(self, source, destination) (int or int[]) -> Transpose: the moved axes land at
// their destinations, the others keep their order in the remaining slots.
T2O_SYMBOLIC("aten::movedim", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  std::vector<int64_t> src = normalize_axes(ctx, ctx.input(1).to_ints(), r);
  std::vector<int64_t> dst = normalize_axes(ctx, ctx.input(2).to_ints(), r);
  if (src.size() != dst.size()) fail("aten::movedim: source " + str(src) + " and destination " + str(dst) + " differ in length");
  std::vector<int64_t> perm((size_t)r, -1);
  std::vector<bool> used((size_t)r, false);
  for (size_t i = 0; i < src.size(); ++i) perm[(size_t)dst[i]] = src[i], used[(size_t)src[i]] = true;
  int64_t next = 0;
  for (auto& p : perm) {
    if (p >= 0) continue;
    while (used[(size_t)next]) ++next;
    p = next++;
  }
  bool identity = true;
  for (int64_t i = 0; i < r; ++i) identity = identity && perm[(size_t)i] == i;
  if (identity) return ctx.set_output(0, x);
  ctx.set_output(0, ctx.op("Transpose", {x}, {Attr::ints("perm", perm)}));
}
