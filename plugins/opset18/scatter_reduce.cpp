// aten::scatter_reduce -> ScatterElements with reduction add/mul/max/min (max and min are new in
// opset 18). include_self=False and reduce="mean" have no ScatterElements form: refused.
// scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

static void scatter_reduce(Ctx& ctx) {
  Value x = ctx.input(0), dim = ctx.input(1), index = ctx.input(2), src = ctx.input(3);
  std::string reduce = ctx.input(4).to_string();
  if (ctx.num_inputs() > 5 && !ctx.input(5).to_bool())
    unsupported("aten::scatter_reduce: include_self=False (ScatterElements always combines with self)");
  static const std::pair<const char*, const char*> kReductions[] = {
      {"sum", "add"}, {"prod", "mul"}, {"amax", "max"}, {"amin", "min"}};
  std::string reduction;
  for (const auto& [torch_name, onnx_name] : kReductions)
    if (reduce == torch_name) reduction = onnx_name;
  if (reduction.empty()) unsupported("aten::scatter_reduce: reduce='" + reduce + "' (sum, prod, amax, amin only)");
  int64_t r = x.rank();
  if (r < 0 || index.rank() < 0) unsupported("aten::scatter_reduce: input rank unknown");
  if (!dim.is_const()) unsupported("aten::scatter_reduce: argument 'dim' computed at run time");
  int64_t axis = normalize_axis(ctx, dim.to_int(), r);
  Value updates = to_dtype(ctx, src, x.dtype());
  // PyTorch uses the leading index-shaped block of src.
  if (index.rank() > 0 && src.dims() != index.dims()) {
    if (!index.has_static_shape() || !src.has_static_shape())
      unsupported("aten::scatter_reduce: src larger than index with dynamic shapes");
    std::vector<int64_t> axes, starts;
    for (int64_t a = 0; a < index.rank(); ++a) axes.push_back(a), starts.push_back(0);
    updates = slice(ctx, updates, axes, starts, index.dims());
  }
  ctx.set_output(0, ctx.op("ScatterElements", {x, as_i64(ctx, index), updates},
                           {Attr::i("axis", axis), Attr::s("reduction", reduction)}));
}

T2O_SYMBOLIC("aten::scatter_reduce", 18) { scatter_reduce(ctx); }
T2O_SYMBOLIC("aten::scatter_reduce_", 18) { scatter_reduce(ctx); }
