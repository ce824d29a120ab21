// aten::permute(self, dims) and aten::transpose(self, dim0, dim1) -> Transpose.
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::permute", 9) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  if (r < 0) unsupported("aten::permute: input rank unknown");
  Value dims = ctx.input(1);
  if (!all_const(dims)) unsupported("aten::permute: argument 'dims' computed at run time");
  std::vector<int64_t> perm = normalize_axes(ctx, dims.to_ints(), r);
  if ((int64_t)perm.size() != r) fail("aten::permute: dims " + str(perm) + " do not match rank " + std::to_string(r));
  ctx.set_output(0, ctx.op("Transpose", {x}, {Attr::ints("perm", perm)}));
}

T2O_SYMBOLIC("aten::transpose", 9) {
  Value x = ctx.input(0);
  int64_t r = x.rank();
  if (r < 0) unsupported("aten::transpose: input rank unknown");
  int64_t a = normalize_axis(ctx, ctx.input(1).to_int(), r), b = normalize_axis(ctx, ctx.input(2).to_int(), r);
  if (a == b || r < 2) return ctx.set_output(0, x);
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < r; ++i) perm.push_back(i);
  std::swap(perm[a], perm[b]);
  ctx.set_output(0, ctx.op("Transpose", {x}, {Attr::ints("perm", perm)}));
}
