// aten::numpy_T (x.T): every axis reversed, Transpose with perm [r-1, ..., 0]; rank 0 and 1 are
// returned as they are.
//
// numpy_T(Tensor(a) self) -> Tensor(a)
#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <vector>

#include "common/util.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::numpy_T", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  if (r < 2) return ctx.set_output(0, x);
  std::vector<int64_t> perm;
  for (int64_t i = r - 1; i >= 0; --i) perm.push_back(i);
  ctx.set_output(0, ctx.op("Transpose", {x}, {Attr::ints("perm", perm)}));
}
