// aten::unflatten(self, dim, sizes) -> Reshape: the dims before dim copied (0), dim replaced by
// sizes (one may be -1), the dims after given (constants when static, Shape otherwise).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::unflatten", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x, "input", 1);
  if (!ctx.input(1).is_const()) unsupported("aten::unflatten: argument 'dim' must be constant");
  int64_t axis = normalize_axis(ctx, ctx.input(1).to_int(), r);
  Value sizes = ctx.input(2);
  if (!all_const(sizes)) unsupported("aten::unflatten: argument 'sizes' computed at run time");
  std::vector<int64_t> head((size_t)axis, 0);
  for (auto s : sizes.to_ints()) {
    if (s == 0) unsupported("aten::unflatten: a size of 0");
    head.push_back(s);
  }
  std::vector<int64_t> rest;
  for (int64_t i = axis + 1; i < r; ++i) rest.push_back(i);
  Value target = ctx.const_i64(head);
  if (!rest.empty()) target = ctx.op("Concat", {target, dims_of(ctx, x, rest)}, {Attr::i("axis", 0)});
  ctx.set_output(0, ctx.op("Reshape", {x, target}));
}
