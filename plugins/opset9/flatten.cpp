// aten::flatten.using_ints(self, start_dim, end_dim) -> Flatten (2-D result) or Reshape.
// The Reshape target uses 0 (copy) for the leading dims and -1 for the merged one, so dynamic dims
// are never baked in; dynamic trailing dims are read at run time (Shape + Gather).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::flatten", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  int64_t start = ctx.num_inputs() > 1 ? ctx.input(1).to_int() : 0;
  int64_t end = ctx.num_inputs() > 2 ? ctx.input(2).to_int() : -1;
  if (r == 0) return ctx.set_output(0, ctx.op("Reshape", {x, ctx.const_i64({1})}));
  int64_t s = normalize_axis(ctx, start, r, "start_dim"), e = normalize_axis(ctx, end, r, "end_dim");
  if (s > e) fail("aten::flatten: start_dim " + std::to_string(start) + " > end_dim " + std::to_string(end));
  if (s == e) return ctx.set_output(0, x);  // nothing merged: PyTorch returns the input
  if (s == 1 && e == r - 1) return ctx.set_output(0, ctx.op("Flatten", {x}, {Attr::i("axis", 1)}));

  std::vector<int64_t> head((size_t)s, 0);
  head.push_back(-1);
  std::vector<int64_t> tail_axes, tail;
  bool tail_static = true;
  for (int64_t i = e + 1; i < r; ++i) {
    tail_axes.push_back(i);
    tail.push_back(x.dim((int32_t)i));
    tail_static = tail_static && tail.back() >= 0;
  }
  Value shape;
  if (tail_static) {
    head.insert(head.end(), tail.begin(), tail.end());
    shape = ctx.const_i64(head);
  } else {
    shape = ctx.op("Concat", {ctx.const_i64(head), dims_tensor(ctx, x, tail_axes)}, {Attr::i("axis", 0)});
  }
  ctx.set_output(0, ctx.op("Reshape", {x, shape}));
}
