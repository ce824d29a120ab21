// Complex values and their parts, on the (real, imaginary) pairs that stand for complex tensors
// (common/complex_pairs.hpp): view_as_real and view_as_complex are the pairs themselves (Identity),
// real/imag Gather one part, abs = sqrt(re^2 + im^2), angle = atan2(im, re). On real tensors abs is
// Abs, angle is pi where x < 0 (NaN stays NaN), real is x.
#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "common/atan2.hpp"
#include "common/complex_pairs.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

// aten::view_as_real(Tensor(a) self) -> Tensor(a): the pairs, now a real tensor (..., 2).
T2O_PAIRS_SYMBOLIC("aten::view_as_real", 9) {
  Value z = ctx.input(0);
  if (!is_complex(z.dtype())) fail("aten::view_as_real: input 'self' is not complex");
  set_typed_output(ctx, 0, ctx.op("Identity", {z}));
}

// aten::view_as_complex(Tensor(a) self) -> Tensor(a): a real (..., 2) tensor read as pairs.
T2O_PAIRS_SYMBOLIC("aten::view_as_complex", 9) {
  Value x = ctx.input(0);
  if (x.rank() >= 0 && x.dim(-1) >= 0 && x.dim(-1) != 2)
    fail("aten::view_as_complex: the last dim of 'self' is " + std::to_string(x.dim(-1)) + ", not 2");
  set_typed_output(ctx, 0, ctx.op("Identity", {x}));
}

// aten::real(Tensor(a) self) -> Tensor(a)
T2O_PAIRS_SYMBOLIC("aten::real", 9) {
  Value z = ctx.input(0);
  if (!is_complex(z.dtype())) return ctx.set_output(0, z);
  set_typed_output(ctx, 0, pair_part(ctx, z, z.rank(), 0));
}

// aten::imag(Tensor(a) self) -> Tensor(a)
T2O_PAIRS_SYMBOLIC("aten::imag", 9) {
  Value z = ctx.input(0);
  if (!is_complex(z.dtype())) fail("aten::imag: input 'self' is not complex (PyTorch refuses it too)");
  set_typed_output(ctx, 0, pair_part(ctx, z, z.rank(), 1));
}

// aten::abs(Tensor self) -> Tensor
T2O_PAIRS_SYMBOLIC("aten::abs", 9) {
  Value z = ctx.input(0);
  if (!is_complex(z.dtype())) return ctx.set_output(0, ctx.op("Abs", {z}));
  set_typed_output(ctx, 0, ctx.op("Sqrt", {reduce(ctx, "ReduceSumSquare", z, {z.rank()}, false)}));
}

// aten::angle(Tensor self) -> Tensor
T2O_PAIRS_SYMBOLIC("aten::angle", 9) {
  Value z = ctx.input(0);
  t2o_dtype dt = output_dtype(ctx, 0, T2O_DTYPE_FLOAT);
  if (!is_float_dtype(dt)) unsupported("aten::angle: output element type " + std::to_string((int)dt));
  if (is_complex(z.dtype())) {
    int32_t r = z.rank();
    return set_typed_output(ctx, 0, atan2(ctx, pair_part(ctx, z, r, 1), pair_part(ctx, z, r, 0), dt));
  }
  Value x = to_dtype(ctx, z, dt);
  Value pi_or_zero = ctx.op("Where", {ctx.op("Less", {x, ctx.scalar(dt, 0.0)}), ctx.scalar(dt, M_PI), ctx.scalar(dt, 0.0)});
  set_typed_output(ctx, 0, ctx.op("Where", {ctx.op("IsNaN", {x}), x, pi_or_zero}));
}
