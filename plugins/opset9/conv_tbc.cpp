// aten::conv_tbc(Tensor self, Tensor weight, Tensor bias, int pad=0) -> Tensor
// A 1-D convolution in (time, batch, channel) layout: self (T, B, Cin) -> (B, Cin, T), weight
// (K, Cin, Cout) -> (Cout, Cin, K), Conv with `pad` on both ends, result (B, Cout, T') -> (T', B, Cout).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::conv_tbc", 9) {
  Value x = ctx.input(0), w = ctx.input(1), b = ctx.input(2);
  if (x.rank() != 3 || w.rank() != 3 || b.rank() != 1)
    fail("aten::conv_tbc: expected a 3-D input, a 3-D weight and a 1-D bias");
  if (!ctx.input(3).is_const()) unsupported("aten::conv_tbc: argument 'pad' must be constant");
  int64_t pad = ctx.input(3).to_int();
  Value xt = ctx.op("Transpose", {ctx.as_onnx(x)}, {Attr::ints("perm", {1, 2, 0})});
  Value wt = ctx.op("Transpose", {ctx.as_onnx(w)}, {Attr::ints("perm", {2, 1, 0})});
  std::vector<Attr> attrs{Attr::ints("pads", {pad, pad})};
  if (w.dim(0) >= 0) attrs.push_back(Attr::ints("kernel_shape", {w.dim(0)}));
  Value y = ctx.op("Conv", {xt, wt, ctx.as_onnx(b)}, attrs);
  ctx.set_output(0, ctx.op("Transpose", {y}, {Attr::ints("perm", {2, 0, 1})}));
}
