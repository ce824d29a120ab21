// Quantized normalizations: the float ONNX form on the dequantized input, then
// QuantizeLinear/DequantizeLinear with output_scale / output_zero_point.
//   quantized::batch_norm{,1d,2d,3d}{,_relu} → BatchNormalization (+ Relu)
//   quantized::instance_norm → InstanceNormalization
//   quantized::group_norm → InstanceNormalization over [N, groups, -1], then the affine per channel
//   quantized::layer_norm → LayerNormalization (opset 17), ReduceMean/Sub/Pow/Sqrt/Div below
#include <torch2onnx/plugin.hpp>

#include <string>
#include <vector>

#include "common/forms.hpp"
#include "qdq.hpp"

using namespace t2o;
using namespace t2o::quant;

namespace {

Value filled(Ctx& ctx, const std::vector<int64_t>& dims, float value) {
  int64_t n = 1;
  for (auto d : dims) n *= d;
  std::vector<float> v(size_t(n), value);
  return ctx.tensor(T2O_DTYPE_FLOAT, dims, v.data(), v.size() * 4);
}

int64_t static_dim(Ctx& ctx, const Value& x, int32_t axis, const char* what) {
  int64_t d = x.dim(axis);
  if (d < 0) unsupported(ctx.kind() + ": " + what + " is dynamic (needed for the default weight/bias)");
  return d;
}

// quantized::batch_norm2d(Tensor qx, Tensor? weight, Tensor? bias, Tensor mean, Tensor var, float eps,
//                         float output_scale, int output_zero_point) -> Tensor
void batch_norm(Ctx& ctx, bool relu) {
  Value x = ctx.input(0), mean = ctx.input(3), var = ctx.input(4);
  const int64_t c = mean.dim(0);
  Value w = ctx.input(1).is_none() ? filled(ctx, {c}, 1.0f) : ctx.input(1);
  Value b = ctx.input(2).is_none() ? filled(ctx, {c}, 0.0f) : ctx.input(2);
  std::vector<Attr> attrs = {Attr::f("epsilon", ctx.input(5).to_float())};
  if (!pack::has(ctx, pack::feature::kBatchNormWithoutMomentum)) attrs.push_back(Attr::f("momentum", 0.9));
  Value y = ctx.op("BatchNormalization", {x, w, b, mean, var}, attrs);
  if (relu) y = ctx.op("Relu", {y});
  ctx.set_output(0, requantize(ctx, y, 6, 7));
}

}  // namespace

T2O_SYMBOLIC("quantized::batch_norm", 10) { batch_norm(ctx, false); }
T2O_SYMBOLIC("quantized::batch_norm1d", 10) { batch_norm(ctx, false); }
T2O_SYMBOLIC("quantized::batch_norm1d_relu", 10) { batch_norm(ctx, true); }
T2O_SYMBOLIC("quantized::batch_norm2d", 10) { batch_norm(ctx, false); }
T2O_SYMBOLIC("quantized::batch_norm2d_relu", 10) { batch_norm(ctx, true); }
T2O_SYMBOLIC("quantized::batch_norm3d", 10) { batch_norm(ctx, false); }
T2O_SYMBOLIC("quantized::batch_norm3d_relu", 10) { batch_norm(ctx, true); }

// quantized::instance_norm(Tensor input, Tensor? weight, Tensor? bias, float eps, float output_scale,
//                          int output_zero_point) -> Tensor
T2O_SYMBOLIC("quantized::instance_norm", 10) {
  Value x = ctx.input(0);
  const int64_t c = static_dim(ctx, x, 1, "the channel dim");
  Value w = ctx.input(1).is_none() ? filled(ctx, {c}, 1.0f) : ctx.input(1);
  Value b = ctx.input(2).is_none() ? filled(ctx, {c}, 0.0f) : ctx.input(2);
  Value y = ctx.op("InstanceNormalization", {x, w, b}, {Attr::f("epsilon", ctx.input(3).to_float())});
  ctx.set_output(0, requantize(ctx, y, 4, 5));
}

// quantized::group_norm(Tensor input, int num_groups, Tensor? weight, Tensor? bias, float eps,
//                       float output_scale, int output_zero_point) -> Tensor
T2O_SYMBOLIC("quantized::group_norm", 10) {
  Value x = ctx.input(0);
  const int32_t rank = x.rank();
  if (rank < 2) unsupported(ctx.kind() + ": input of rank " + std::to_string(rank));
  const int64_t groups = ctx.input(1).to_int();
  const int64_t c = static_dim(ctx, x, 1, "the channel dim");
  Value grouped = ctx.op("Reshape", {x, ctx.const_i64({0, groups, -1})});
  Value normed = ctx.op("InstanceNormalization", {grouped, filled(ctx, {groups}, 1.0f), filled(ctx, {groups}, 0.0f)},
                        {Attr::f("epsilon", ctx.input(4).to_float())});
  Value y = ctx.op("Reshape", {normed, ctx.op("Shape", {x})});
  std::vector<int64_t> per_channel(size_t(rank - 1), 1);
  per_channel[0] = c;
  if (!ctx.input(2).is_none()) y = ctx.op("Mul", {y, ctx.op("Reshape", {ctx.input(2), ctx.const_i64(per_channel)})});
  if (!ctx.input(3).is_none()) y = ctx.op("Add", {y, ctx.op("Reshape", {ctx.input(3), ctx.const_i64(per_channel)})});
  ctx.set_output(0, requantize(ctx, y, 5, 6));
}

// quantized::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps,
//                       float output_scale, int output_zero_point) -> Tensor
T2O_SYMBOLIC("quantized::layer_norm", 10) {
  Value x = ctx.input(0);
  const auto shape = ctx.input(1).to_ints();
  const int32_t rank = x.rank();
  const int64_t k = int64_t(shape.size());
  if (rank < 0 || k == 0 || k > rank) unsupported(ctx.kind() + ": normalized_shape of " + std::to_string(k) + " dims");
  const double eps = ctx.input(4).to_float();
  Value w = ctx.input(2), b = ctx.input(3);
  Value y;
  if (pack::has(ctx, pack::feature::kLayerNormalization)) {
    Value scale = w.is_none() ? filled(ctx, shape, 1.0f) : w;
    y = ctx.op("LayerNormalization", b.is_none() ? std::vector<Value>{x, scale} : std::vector<Value>{x, scale, b},
               {Attr::i("axis", -k), Attr::f("epsilon", eps)});
  } else {
    std::vector<int64_t> axes;
    for (int64_t a = rank - k; a < rank; ++a) axes.push_back(a);
    Value centered = ctx.op("Sub", {x, pack::reduce(ctx, "ReduceMean", x, axes, true)});
    Value var = pack::reduce(ctx, "ReduceMean", ctx.op("Mul", {centered, centered}), axes, true);
    y = ctx.op("Div", {centered, ctx.op("Sqrt", {ctx.op("Add", {var, scale_const(ctx, eps)})})});
    if (!w.is_none()) y = ctx.op("Mul", {y, w});
    if (!b.is_none()) y = ctx.op("Add", {y, b});
  }
  ctx.set_output(0, requantize(ctx, y, 5, 6));
}
