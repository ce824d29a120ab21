// aten::broadcast_tensors(tensors) and aten::meshgrid(tensors, indexing='ij'): each tensor expanded
// to the common shape. meshgrid takes 0-d/1-D tensors: tensor i is reshaped to lie along axis i
// ('xy' indexing swaps the first two axes) before the Expand.
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// The broadcast shape of `parts` (1-D int64): Shape of their sum of zeros, each cast to int64.
Value common_shape(Ctx& ctx, const std::vector<Value>& parts) {
  Value acc;
  for (const Value& p : parts) {
    Value z = ctx.op("Mul", {ctx.op("Cast", {p}, {Attr::i("to", T2O_DTYPE_INT64)}), ctx.scalar_i64(0)});
    acc = acc.valid() ? ctx.op("Add", {acc, z}) : z;
  }
  return ctx.op("Shape", {acc});
}

std::vector<Value> tensor_items(Ctx& ctx, const Value& list) {
  if (list.kind() != T2O_KIND_LIST) unsupported(ctx.kind() + ": tensors must be a list built in the graph");
  std::vector<Value> items = list.items();
  if (items.empty()) fail(ctx.kind() + ": an empty list");
  return items;
}

}  // namespace

T2O_SYMBOLIC("aten::broadcast_tensors", 9) {
  std::vector<Value> items = tensor_items(ctx, ctx.input(0));
  std::vector<Value> onnx;
  for (const Value& v : items) onnx.push_back(ctx.as_onnx(v));
  Value shape = common_shape(ctx, onnx);
  std::vector<Value> out;
  for (const Value& v : onnx) out.push_back(ctx.op("Expand", {v, shape}));
  ctx.set_output(0, ctx.make_list(out));
}

T2O_SYMBOLIC("aten::meshgrid", 9) {
  std::vector<Value> items = tensor_items(ctx, ctx.input(0));
  std::string indexing = ctx.num_inputs() > 1 && !ctx.input(1).is_none() ? ctx.input(1).to_string() : "ij";
  if (indexing != "ij" && indexing != "xy") fail("aten::meshgrid: indexing='" + indexing + "'");
  int64_t n = (int64_t)items.size();
  std::vector<Value> placed;
  for (int64_t i = 0; i < n; ++i) {
    if (items[(size_t)i].rank() > 1) fail("aten::meshgrid: expects 0-d or 1-D tensors");
    int64_t axis = i;
    if (indexing == "xy" && n >= 2 && i < 2) axis = 1 - i;
    std::vector<int64_t> shape((size_t)n, 1);
    shape[(size_t)axis] = -1;
    placed.push_back(ctx.op("Reshape", {items[(size_t)i], ctx.const_i64(shape)}));
  }
  Value shape = common_shape(ctx, placed);
  std::vector<Value> out;
  for (const Value& v : placed) out.push_back(ctx.op("Expand", {v, shape}));
  ctx.set_output(0, ctx.make_list(out));
}
