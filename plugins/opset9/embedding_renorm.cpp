// aten::embedding_renorm (nn.Embedding(max_norm=...), made functional by the core): the weight
// with every row that `indices` looks up and whose p-norm exceeds max_norm scaled by
// max_norm / (norm + 1e-7), as ATen's embedding_renorm_ does; other rows unchanged.
// Dense form (every opset): the looked-up rows are a mask from Equal(indices, arange(V)) reduced
// over the indices, so no Unique/ScatterND (opset 11) is needed. norm_type 1 or 2 (ReduceL1 /
// ReduceL2), as torch.onnx; other norms are refused.
//
// embedding_renorm(Tensor self, Tensor indices, float max_norm, float norm_type) -> Tensor
#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::embedding_renorm", 9) {
  Value weight = ctx.input(0), indices = ctx.input(1);
  if (known_rank(ctx, weight, "weight 'self'") != 2) unsupported("aten::embedding_renorm: argument 'self' must be a 2-D weight");
  if (!ctx.input(2).is_const() || !ctx.input(3).is_const())
    unsupported("aten::embedding_renorm: arguments 'max_norm' and 'norm_type' must be constants");
  double max_norm = ctx.input(2).to_float(), norm_type = ctx.input(3).to_float();
  const char* reduce_op = norm_type == 1.0 ? "ReduceL1" : norm_type == 2.0 ? "ReduceL2" : nullptr;
  if (!reduce_op)
    unsupported("aten::embedding_renorm: argument 'norm_type' = " + std::to_string(norm_type) + " (only 1 and 2)");
  t2o_dtype dt = weight.dtype();
  if (!is_float_dtype(dt)) fail("aten::embedding_renorm: the weight must be floating point");
  Value norm = reduce(ctx, reduce_op, weight, {1}, true);  // [V, 1]
  // rows[v] = v as a [1, V] tensor
  Value rows;
  int64_t vocab = weight.dim(0);
  if (vocab >= 0) {
    std::vector<int64_t> ids;
    for (int64_t v = 0; v < vocab; ++v) ids.push_back(v);
    rows = ctx.tensor(T2O_DTYPE_INT64, {1, vocab}, ids.data(), ids.size() * sizeof(int64_t));
  } else {
    Value ones = ctx.op("ConstantOfShape", {dims_tensor(ctx, weight, {0})},
                        {Attr::tensor("value", ctx.const_i64({1}))});
    rows = ctx.op("NonZero", {ones});  // [1, V]
  }
  Value flat = ctx.op("Reshape", {cast_to(ctx, ctx.as_onnx(indices), T2O_DTYPE_INT64), ctx.const_i64({-1, 1})});
  Value hits = ctx.op("Cast", {ctx.op("Equal", {flat, rows})}, {Attr::i("to", T2O_DTYPE_FLOAT)});  // [K, V]
  Value looked_up = ctx.op("Greater", {reduce(ctx, "ReduceMax", hits, {0}, false), ctx.scalar(T2O_DTYPE_FLOAT, 0.0)});
  looked_up = ctx.op("Reshape", {looked_up, ctx.const_i64({-1, 1})});  // [V, 1]
  Value too_long = ctx.op("And", {looked_up, ctx.op("Greater", {norm, ctx.scalar(dt, max_norm)})});
  Value scale = ctx.op("Div", {ctx.scalar(dt, max_norm), ctx.op("Add", {norm, ctx.scalar(dt, 1e-7)})});
  scale = ctx.op("Where", {too_long, scale, ctx.scalar(dt, 1.0)});
  ctx.set_output(0, ctx.op("Mul", {weight, scale}));
}
