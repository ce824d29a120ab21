// aten::max_unpool2d(self, indices, int[2] output_size) and
// aten::max_unpool3d(self, indices, int[3] output_size, int[3] stride, int[3] padding)
// (F.max_unpool1d calls max_unpool2d with a trailing unit axis).
// PyTorch's indices count within each (n, c) plane of the output, so each plane is a scatter along
// one flattened axis: zeros [N, C, prod(output_size)] <- Scatter(axis 2) of the input's values,
// then reshaped to [N, C, *output_size]. (ONNX MaxUnpool would need indices counted over the whole
// tensor and kernel/stride attributes that the op no longer carries.) Scatter up to opset 10,
// ScatterElements from 11 (Scatter is deprecated there).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void max_unpool(Ctx& ctx, size_t n) {
  Value x = ctx.input(0), indices = ctx.input(1), size_arg = ctx.input(2);
  int64_t r = x.rank();
  if (r != (int64_t)n + 1 && r != (int64_t)n + 2)
    fail(ctx.kind() + ": expected a " + std::to_string(n + 2) + "-D input, got rank " + std::to_string(r));
  if (!all_const(size_arg)) unsupported(ctx.kind() + ": output_size computed at run time");
  std::vector<int64_t> size = size_arg.to_ints();
  if (size.size() != n) fail(ctx.kind() + ": output_size=" + str(size) + " should have " + std::to_string(n) + " entries");
  int64_t plane = 1;
  for (auto s : size) plane *= s;
  int64_t lead = r - (int64_t)n;  // N, C or just C
  std::vector<int64_t> lead_axes;
  for (int64_t i = 0; i < lead; ++i) lead_axes.push_back(i);
  std::vector<int64_t> flat_shape(lead, 0);  // Reshape: 0 copies the dim
  flat_shape.push_back(-1);
  Value flat_x = ctx.op("Reshape", {x, ctx.const_i64(flat_shape)});
  Value flat_i = ctx.op("Reshape", {as_i64(ctx, indices), ctx.const_i64(flat_shape)});
  Value lead_dims = dims_of(ctx, x, lead_axes);
  Value zeros_shape = ctx.op("Concat", {lead_dims, ctx.const_i64({plane})}, {Attr::i("axis", 0)});
  Value zeros = ctx.op("Expand", {ctx.scalar(x.dtype(), 0.0), zeros_shape});
  Value y = scatter_elements(ctx, zeros, flat_i, flat_x, lead);
  Value out_shape = ctx.op("Concat", {lead_dims, ctx.const_i64(size)}, {Attr::i("axis", 0)});
  ctx.set_output(0, ctx.op("Reshape", {y, out_shape}));
}

}  // namespace

T2O_SYMBOLIC("aten::max_unpool2d", 9) { max_unpool(ctx, 2); }
T2O_SYMBOLIC("aten::max_unpool3d", 9) { max_unpool(ctx, 3); }
