// torchvision::deform_conv2d -> DeformConv (new in opset 19). Its offset layout is torchvision's:
// [N, offset_groups * kH * kW * 2, oH, oW], (dy, dx) per kernel position; the mask [N,
// offset_groups * kH * kW, oH, oW] is passed only when use_mask. Below opset 19 there is no ONNX
// form: dispatch says "needs --opset 19".
#include <torch2onnx/plugin.hpp>

using namespace t2o;

// torchvision::deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias,
//     int stride_h, int stride_w, int pad_h, int pad_w, int dilation_h, int dilation_w, int groups,
//     int offset_groups, bool use_mask) -> Tensor
T2O_SYMBOLIC("torchvision::deform_conv2d", 19) {
  Value input = ctx.input(0), weight = ctx.input(1), offset = ctx.input(2), mask = ctx.input(3), bias = ctx.input(4);
  for (int i = 5; i <= 13; ++i)
    if (!ctx.input(i).is_const())
      unsupported("torchvision::deform_conv2d: argument " + std::to_string(i) + " is computed at run time");
  auto arg = [&](int i) { return ctx.input(i).to_int(); };
  if (weight.rank() != 4 || weight.dim(2) < 0 || weight.dim(3) < 0)
    unsupported("torchvision::deform_conv2d: argument 'weight' must be a 4-d tensor of fixed kernel size");
  std::vector<Value> inputs{input, weight, offset, bias};
  if (ctx.input(13).to_bool()) inputs.push_back(mask);
  ctx.set_output(0, ctx.op("DeformConv", inputs,
                           {Attr::ints("strides", {arg(5), arg(6)}), Attr::ints("pads", {arg(7), arg(8), arg(7), arg(8)}),
                            Attr::ints("dilations", {arg(9), arg(10)}), Attr::i("group", arg(11)),
                            Attr::i("offset_group", arg(12)), Attr::ints("kernel_shape", {weight.dim(2), weight.dim(3)})}));
}
