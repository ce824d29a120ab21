// aten::as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)
// self flattened to 1-D stands for its storage (as in torch.onnx), then one Gather with the
// constant positions storage_offset + sum_i index_i * stride_i, shaped `size`. Sizes, strides and
// offset must be constants. Limitation: ONNX values carry no strides, so this matches PyTorch when
// self is contiguous from storage offset 0 (a model input, or most computed values); on a
// non-contiguous view (e.g. x.t().as_strided(...)) PyTorch reads the view's base storage instead.
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::as_strided", 9) {
  Value x = ctx.input(0);
  for (int i = 1; i < 3; ++i)
    if (!all_const(ctx.input(i))) unsupported("aten::as_strided: sizes and strides must be constants");
  std::vector<int64_t> size = ctx.input(1).to_ints(), stride = ctx.input(2).to_ints();
  Value off = opt_input(ctx, 3);
  if (off.valid() && !off.is_const()) unsupported("aten::as_strided: argument 'storage_offset' must be constant");
  int64_t offset = off.valid() ? off.to_int() : 0;
  if (size.size() != stride.size()) fail("aten::as_strided: size and stride differ in length");
  known_rank(ctx, x);
  int64_t numel = 1;
  for (auto d : x.dims()) numel = (d < 0 || numel < 0) ? -1 : numel * d;
  std::vector<int64_t> positions{offset};
  for (size_t a = 0; a < size.size(); ++a) {
    std::vector<int64_t> next;
    for (int64_t p : positions)
      for (int64_t i = 0; i < size[a]; ++i) next.push_back(p + i * stride[a]);
    positions.swap(next);
  }
  for (int64_t p : positions)
    if (p < 0 || (numel >= 0 && p >= numel))
      fail("aten::as_strided: position " + std::to_string(p) + " outside the input's " + std::to_string(numel) +
           " elements");
  Value flat = ctx.op("Reshape", {ctx.as_onnx(x), ctx.const_i64({-1})});
  Value idx = ctx.tensor(T2O_DTYPE_INT64, size, positions.data(), positions.size() * sizeof(int64_t));
  ctx.set_output(0, ctx.op("Gather", {flat, idx}, {Attr::i("axis", 0)}));
}
