// aten::eye(int n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)
// aten::eye.m(int n, int m, *, dtype, layout, device, pin_memory) -> Tensor
// Constant sizes give a constant identity; sizes computed at run time give
// EyeLike(ConstantOfShape([n, m])). The element type is the output's (dtype argument or default).
#include <torch2onnx/plugin.hpp>

#include "common/constants.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void eye(Ctx& ctx, bool has_m) {
  Value n = ctx.input(0), m = has_m ? ctx.input(1) : ctx.input(0);
  t2o_dtype dt = output_dtype(ctx, 0, T2O_DTYPE_FLOAT);
  if (n.is_const() && m.is_const()) {
    int64_t rows = n.to_int(), cols = m.to_int();
    if (rows < 0 || cols < 0) fail("aten::eye: negative size " + std::to_string(rows) + "x" + std::to_string(cols));
    std::vector<int64_t> values((size_t)(rows * cols), 0);
    for (int64_t i = 0; i < rows && i < cols; ++i) values[(size_t)(i * cols + i)] = 1;
    return ctx.set_output(0, constant_of(ctx, dt, {rows, cols}, {}, values));
  }
  Value shape = ctx.op("Concat", {unsqueeze(ctx, to_dtype(ctx, n, T2O_DTYPE_INT64), {0}),
                                  unsqueeze(ctx, to_dtype(ctx, m, T2O_DTYPE_INT64), {0})},
                       {Attr::i("axis", 0)});
  Value zeros = ctx.op("ConstantOfShape", {shape});  // float zeros
  t2o_dtype eye_dt = dt == T2O_DTYPE_BFLOAT16 ? T2O_DTYPE_FLOAT : dt;  // EyeLike has no bfloat16
  Value y = ctx.op("EyeLike", {zeros}, {Attr::i("dtype", eye_dt)});
  if (eye_dt != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
  ctx.set_output(0, y);
}

}  // namespace

// The overload is told by the input count: eye(n, 4 options) has 5, eye.m(n, m, ...) has 6.
T2O_SYMBOLIC("aten::eye", 9) { eye(ctx, ctx.num_inputs() == 6); }
