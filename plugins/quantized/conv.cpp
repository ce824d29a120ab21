// quantized::conv1d/conv2d/conv3d (± _relu) and quantized::conv_transpose1d/2d/3d:
// Conv / ConvTranspose on the dequantized input and weight with the float bias (+ Relu), then
// QuantizeLinear/DequantizeLinear with output_scale / output_zero_point (torch.onnx's form).
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "qdq.hpp"

using namespace t2o;
using namespace t2o::quant;

namespace {

// Packed parameters as torch2onnx::conv_packed_params lists them:
// [weight, bias, stride, padding, output_padding, dilation, groups, transposed].
void conv(Ctx& ctx, bool relu, bool want_transposed) {
  // quantized::conv2d.new(Tensor qx, Conv2dPackedParamsBase packed_weight, float output_scale,
  //                       int output_zero_point) -> Tensor
  // (the old overload with stride/padding/dilation/groups arguments is the same packed weight)
  const int32_t n = ctx.num_inputs();
  Value params = ctx.input(1);
  if (!params.is_list() || params.list_size() != 8)
    unsupported(ctx.kind() + ": packed_weight is not a constant packed-parameter object");
  auto p = params.items();
  Value x = ctx.input(0), weight = p[0], bias = p[1];
  const bool transposed = p[7].to_bool();
  if (transposed != want_transposed)
    fail(ctx.kind() + ": packed_weight was packed for a " + (transposed ? "transposed" : "plain") + " convolution");
  const int32_t spatial = weight.rank() - 2;
  auto stride = p[2].to_ints(), padding = p[3].to_ints(), output_padding = p[4].to_ints(), dilation = p[5].to_ints();
  std::vector<int64_t> pads(padding);
  pads.insert(pads.end(), padding.begin(), padding.end());
  std::vector<Attr> attrs = {Attr::ints("strides", stride), Attr::ints("pads", pads), Attr::ints("dilations", dilation),
                             Attr::i("group", p[6].to_int())};
  std::vector<int64_t> kernel;
  for (int32_t i = 0; i < spatial; ++i) kernel.push_back(weight.dim(2 + i));
  if (!kernel.empty() && kernel.back() >= 0) attrs.push_back(Attr::ints("kernel_shape", kernel));
  if (transposed) attrs.push_back(Attr::ints("output_padding", output_padding));
  std::vector<Value> inputs = {x, weight};
  // At opset 10 the float bias is added after the convolution: ONNX Runtime's QDQ fusion would
  // quantize it with a Round node, which needs opset 11.
  const bool separate_bias = !bias.is_none() && !pack::has(ctx, pack::feature::kRound);
  if (!bias.is_none() && !separate_bias) inputs.push_back(bias);
  Value y = ctx.op(transposed ? "ConvTranspose" : "Conv", inputs, attrs);
  if (separate_bias) {
    std::vector<int64_t> per_channel(size_t(spatial + 1), 1);
    per_channel[0] = -1;
    y = ctx.op("Add", {y, ctx.op("Reshape", {bias, ctx.const_i64(per_channel)})});
  }
  if (relu) y = ctx.op("Relu", {y});
  ctx.set_output(0, requantize(ctx, y, n - 2, n - 1));
}

}  // namespace

T2O_SYMBOLIC("quantized::conv1d", 10) { conv(ctx, false, false); }
T2O_SYMBOLIC("quantized::conv1d_relu", 10) { conv(ctx, true, false); }
T2O_SYMBOLIC("quantized::conv2d", 10) { conv(ctx, false, false); }
T2O_SYMBOLIC("quantized::conv2d_relu", 10) { conv(ctx, true, false); }
T2O_SYMBOLIC("quantized::conv3d", 10) { conv(ctx, false, false); }
T2O_SYMBOLIC("quantized::conv3d_relu", 10) { conv(ctx, true, false); }
T2O_SYMBOLIC("quantized::conv_transpose1d", 10) { conv(ctx, false, true); }
T2O_SYMBOLIC("quantized::conv_transpose2d", 10) { conv(ctx, false, true); }
T2O_SYMBOLIC("quantized::conv_transpose3d", 10) { conv(ctx, false, true); }
