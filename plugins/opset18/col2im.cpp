// aten::col2im (nn.Fold / F.fold) -> Col2Im (new in opset 18). Unbatched (C*kH*kW, L) inputs get a
// batch axis of 1 around the node.
// col2im(Tensor self, int[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor
#include <torch2onnx/plugin.hpp>

#include "common/forms.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::col2im", 18) {
  Value x = ctx.input(0);
  const char* names[] = {"output_size", "kernel_size", "dilation", "padding", "stride"};
  std::vector<std::vector<int64_t>> args;
  for (int32_t i = 1; i <= 5; ++i) {
    if (!all_const(ctx.input(i))) unsupported(std::string("aten::col2im: argument '") + names[i - 1] + "' is computed at run time");
    args.push_back(ctx.input(i).to_ints());
    if (args.back().size() != 2)
      unsupported(std::string("aten::col2im: argument '") + names[i - 1] + "' has " + std::to_string(args.back().size()) +
                  " values (2 expected)");
  }
  const auto& padding = args[3];
  int32_t r = x.rank();
  if (r != 2 && r != 3) unsupported("aten::col2im: input of rank " + std::to_string(r) + " (2 or 3 expected)");
  Value in = r == 2 ? unsqueeze(ctx, x, {0}) : x;
  Value y = ctx.op("Col2Im", {in, ctx.const_i64(args[0]), ctx.const_i64(args[1])},
                   {Attr::ints("dilations", args[2]), Attr::ints("pads", {padding[0], padding[1], padding[0], padding[1]}),
                    Attr::ints("strides", args[4])});
  ctx.set_output(0, r == 2 ? squeeze(ctx, y, {0}) : y);
}
