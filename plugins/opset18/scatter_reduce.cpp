// aten::scatter_reduce -> ScatterElements with reduction add/mul/max/min (max and min are new in
// opset 18), replacing the dense one-hot form of the earlier opsets.
//   include_self=False: the positions some index names are first set to the reduction's neutral
//   element (ScatterElements without reduction), so only src values combine there.
//   mean: the sum (as above) divided by the number of values each position received (+1 for self
//   when include_self; positions nobody names keep self); integer means divide with floor, as PyTorch.
// scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor
#include <torch2onnx/plugin.hpp>

#include <cmath>
#include <limits>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// The neutral element of `reduction` (add/mul/max/min) in dtype dt, as a 0-d tensor.
Value neutral(Ctx& ctx, const std::string& reduction, t2o_dtype dt) {
  bool floating = is_float_dtype(dt);
  if (reduction == "mul") return ctx.scalar(dt, 1.0);
  if (reduction == "add") return ctx.scalar(dt, 0.0);
  bool is_max = reduction == "max";
  if (floating) return ctx.scalar(dt, is_max ? -INFINITY : INFINITY);
  if (dt == T2O_DTYPE_INT64)
    return ctx.scalar_i64(is_max ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max());
  if (dt == T2O_DTYPE_INT32)
    return ctx.scalar(dt, is_max ? (double)std::numeric_limits<int32_t>::min() : (double)std::numeric_limits<int32_t>::max());
  if (dt == T2O_DTYPE_INT16)
    return ctx.scalar(dt, is_max ? (double)std::numeric_limits<int16_t>::min() : (double)std::numeric_limits<int16_t>::max());
  if (dt == T2O_DTYPE_INT8)
    return ctx.scalar(dt, is_max ? (double)std::numeric_limits<int8_t>::min() : (double)std::numeric_limits<int8_t>::max());
  if (dt == T2O_DTYPE_UINT8) return ctx.scalar(dt, is_max ? 0.0 : 255.0);
  unsupported(ctx.kind() + ": element type " + std::to_string((int)dt));
}

void scatter_reduce(Ctx& ctx) {
  Value x = ctx.input(0), dim = ctx.input(1), index = ctx.input(2), src = ctx.input(3);
  std::string reduce = ctx.input(4).to_string();
  bool include_self = ctx.num_inputs() > 5 ? ctx.input(5).to_bool() : true;
  static const std::pair<const char*, const char*> kReductions[] = {
      {"sum", "add"}, {"prod", "mul"}, {"amax", "max"}, {"amin", "min"}, {"mean", "add"}};
  std::string reduction;
  for (const auto& [torch_name, onnx_name] : kReductions)
    if (reduce == torch_name) reduction = onnx_name;
  if (reduction.empty()) fail("aten::scatter_reduce: reduce='" + reduce + "' (sum, prod, mean, amax or amin)");
  int64_t r = known_rank(ctx, x);
  known_rank(ctx, index);
  if (!dim.is_const()) unsupported("aten::scatter_reduce: argument 'dim' computed at run time");
  int64_t axis = normalize_axis(ctx, dim.to_int(), r);
  t2o_dtype dt = x.dtype();
  Value updates = to_dtype(ctx, src, dt);
  // PyTorch uses the leading index-shaped block of src.
  if (index.rank() > 0 && src.dims() != index.dims()) {
    if (!index.has_static_shape() || !src.has_static_shape())
      unsupported("aten::scatter_reduce: src larger than index with dynamic shapes");
    std::vector<int64_t> axes, starts;
    for (int64_t a = 0; a < index.rank(); ++a) axes.push_back(a), starts.push_back(0);
    updates = slice(ctx, updates, axes, starts, index.dims());
  }
  Value idx = as_i64(ctx, index);
  auto scatter = [&](const Value& data, const Value& values, const std::string& red) {
    std::vector<Attr> attrs{Attr::i("axis", axis)};
    if (red != "none") attrs.push_back(Attr::s("reduction", red));
    return ctx.op("ScatterElements", {data, idx, values}, attrs);
  };
  Value base = x;
  if (!include_self)
    base = scatter(x, ctx.op("Expand", {neutral(ctx, reduction, dt), ctx.op("Shape", {idx})}), "none");
  Value y = scatter(base, updates, reduction);
  if (reduce == "mean") {
    // How many values each position received, plus one for self where self counts.
    Value ones = ctx.op("Expand", {ctx.scalar(dt, 1.0), ctx.op("Shape", {idx})});
    Value counts = scatter(ctx.op("Mul", {x, ctx.scalar(dt, 0.0)}), ones, "add");
    counts = include_self ? ctx.op("Add", {counts, ctx.scalar(dt, 1.0)}) : ctx.op("Max", {counts, ctx.scalar(dt, 1.0)});
    Value q = ctx.op("Div", {y, counts});
    if (!is_float_dtype(dt)) {  // Div truncates; counts > 0, so floor = trunc - (remainder < 0)
      Value rem = ctx.op("Sub", {y, ctx.op("Mul", {q, counts})});
      Value negative = ctx.op("Cast", {ctx.op("Less", {rem, ctx.scalar(dt, 0.0)})}, {Attr::i("to", dt)});
      q = ctx.op("Sub", {q, negative});
    }
    y = q;
  }
  ctx.set_output(0, y);
}

}  // namespace

T2O_SYMBOLIC("aten::scatter_reduce", 18) { scatter_reduce(ctx); }
T2O_SYMBOLIC("aten::scatter_reduce_", 18) { scatter_reduce(ctx); }
