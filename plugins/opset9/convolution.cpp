// aten::_convolution, aten::convolution, aten::_convolution_mode (traced padding="same"/"valid"),
// aten::conv1d/2d/3d (int-list and "same"/"valid" padding overloads), aten::conv_transpose1d/2d/3d
// -> Conv / ConvTranspose.
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

struct ConvArgs {
  Value input, weight, bias;
  Value stride, padding, dilation, output_padding, groups;
  bool transposed = false;
};

void emit_conv(Ctx& ctx, const ConvArgs& a) {
  int32_t wr = a.weight.rank();
  if (wr < 3) fail(ctx.kind() + ": weight must have rank >= 3, got " + std::to_string(wr));
  size_t n = (size_t)wr - 2;
  std::vector<int64_t> kernel;
  for (int32_t i = 2; i < wr; ++i) {
    int64_t k = a.weight.dim(i);
    if (k < 0) unsupported(ctx.kind() + ": weight with a dynamic kernel size");
    kernel.push_back(k);
  }
  std::vector<int64_t> ones(n, 1), zeros(n, 0);
  std::vector<int64_t> stride = expand_ints(ctx, a.stride, n, "stride", ones);
  std::vector<int64_t> dilation = expand_ints(ctx, a.dilation, n, "dilation", ones);
  int64_t groups = a.groups.valid() && !a.groups.is_none() ? a.groups.to_int() : 1;

  std::vector<int64_t> pads;  // ONNX order: begins then ends
  if (a.padding.valid() && a.padding.kind() == T2O_KIND_STRING) {
    std::string mode = a.padding.to_string();
    if (mode == "valid") {
      pads.assign(2 * n, 0);
    } else if (mode == "same") {
      // total = d*(k-1) (stride is 1 for "same"); PyTorch puts the odd element at the end.
      pads.assign(2 * n, 0);
      for (size_t i = 0; i < n; ++i) {
        int64_t total = dilation[i] * (kernel[i] - 1);
        pads[i] = total / 2;
        pads[i + n] = total - total / 2;
      }
    } else {
      unsupported(ctx.kind() + ": padding='" + mode + "'");
    }
  } else {
    std::vector<int64_t> p = expand_ints(ctx, a.padding, n, "padding", zeros);
    pads = p;
    pads.insert(pads.end(), p.begin(), p.end());
  }

  std::vector<Attr> attrs{Attr::ints("kernel_shape", kernel), Attr::ints("strides", stride),
                          Attr::ints("pads", pads), Attr::ints("dilations", dilation), Attr::i("group", groups)};
  std::string op_type = "Conv";
  if (a.transposed) {
    op_type = "ConvTranspose";
    std::vector<int64_t> op = expand_ints(ctx, a.output_padding, n, "output_padding", zeros);
    bool any = false;
    for (auto v : op) any = any || v != 0;
    if (any) attrs.push_back(Attr::ints("output_padding", op));
  }
  Value w = a.weight, b = a.bias;
  Value y = with_batch(ctx, a.input, (int64_t)n, [&](const Value& x) { return ctx.op(op_type, {x, w, b}, attrs); });
  ctx.set_output(0, y);
}

}  // namespace

// _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups,
//              benchmark, deterministic, cudnn_enabled[, allow_tf32])
// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
static void convolution_generic(Ctx& ctx) {
  ConvArgs a;
  a.input = ctx.input(0);
  a.weight = ctx.input(1);
  a.bias = opt_input(ctx, 2);
  a.stride = ctx.input(3);
  a.padding = ctx.input(4);
  a.dilation = ctx.input(5);
  a.transposed = ctx.input(6).to_bool();
  a.output_padding = ctx.input(7);
  a.groups = ctx.input(8);
  emit_conv(ctx, a);
}

T2O_SYMBOLIC("aten::_convolution", 9) { convolution_generic(ctx); }
T2O_SYMBOLIC("aten::convolution", 9) { convolution_generic(ctx); }

// conv{1,2,3}d(input, weight, bias, stride, padding (int[] or str), dilation, groups)
static void conv_nd(Ctx& ctx) {
  ConvArgs a;
  a.input = ctx.input(0);
  a.weight = ctx.input(1);
  a.bias = opt_input(ctx, 2);
  a.stride = opt_input(ctx, 3);
  a.padding = opt_input(ctx, 4);
  a.dilation = opt_input(ctx, 5);
  a.groups = opt_input(ctx, 6);
  emit_conv(ctx, a);
}

T2O_SYMBOLIC("aten::conv1d", 9) { conv_nd(ctx); }
// _convolution_mode(input, weight, bias, stride, str padding, dilation, groups): what tracing records
// for conv{1,2,3}d with a string padding; same argument order as conv_nd.
T2O_SYMBOLIC("aten::_convolution_mode", 9) { conv_nd(ctx); }
T2O_SYMBOLIC("aten::conv2d", 9) { conv_nd(ctx); }
T2O_SYMBOLIC("aten::conv3d", 9) { conv_nd(ctx); }

// conv_transpose{1,2,3}d(input, weight, bias, stride, padding, output_padding, groups, dilation)
static void conv_transpose_nd(Ctx& ctx) {
  ConvArgs a;
  a.input = ctx.input(0);
  a.weight = ctx.input(1);
  a.bias = opt_input(ctx, 2);
  a.stride = opt_input(ctx, 3);
  a.padding = opt_input(ctx, 4);
  a.output_padding = opt_input(ctx, 5);
  a.groups = opt_input(ctx, 6);
  a.dilation = opt_input(ctx, 7);
  a.transposed = true;
  emit_conv(ctx, a);
}

T2O_SYMBOLIC("aten::conv_transpose1d", 9) { conv_transpose_nd(ctx); }
T2O_SYMBOLIC("aten::conv_transpose2d", 9) { conv_transpose_nd(ctx); }
T2O_SYMBOLIC("aten::conv_transpose3d", 9) { conv_transpose_nd(ctx); }
