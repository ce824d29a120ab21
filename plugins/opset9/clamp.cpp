// aten::clamp / clip (Scalar and Tensor bounds), clamp_min, clamp_max (+ in-place variants).
// Constant number bounds -> Clip, whose form changes at 11 (min/max inputs instead of float
// attributes; common/forms.hpp clip() emits the right one); Clip and Max/Min take integers only from
// 12, so below 12 integer tensors are clamped in double (exact up to 2^53) and cast back, with
// Max/Min (ONNX Runtime's Clip kernels before 12 are float-only).
// Tensor or run-time bounds -> Max/Min (broadcasting, like PyTorch). Bounds are promoted with x:
// the output's dtype.
#include <torch2onnx/plugin.hpp>

#include "common/promote.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

bool const_number(const Value& v) { return v.valid() && is_scalar_kind(v.kind()) && v.is_const(); }

void clamp(Ctx& ctx, Value lo, Value hi) {
  Value x = ctx.input(0);
  if (!lo.valid() && !hi.valid()) fail(ctx.kind() + ": at least one of 'min' and 'max' must not be None");
  t2o_dtype dt = output_dtype(ctx, 0, result_type({x, lo, hi}));
  // The dtype the clamp is computed in.
  t2o_dtype work = dt;
  if (!is_float_dtype(dt) && !has(ctx, feature::kIntegerClipPow)) work = T2O_DTYPE_DOUBLE;
  if (dt == T2O_DTYPE_BOOL) unsupported(ctx.kind() + ": clamping a bool tensor");
  Value in = to_dtype(ctx, x, work);
  Value y;
  bool lo_num = !lo.valid() || const_number(lo), hi_num = !hi.valid() || const_number(hi);
  // ONNX Runtime's Clip below 12 is float-only: other dtypes use Max/Min (double kernels exist).
  // Clip-6 also refuses min > max (PyTorch then gives max everywhere, as Max/Min do).
  bool clip_ok = has(ctx, feature::kIntegerClipPow) || work == T2O_DTYPE_FLOAT;
  if (lo_num && hi_num && lo.valid() && hi.valid() && lo.to_float() > hi.to_float() && !has(ctx, feature::kClipInputs)) clip_ok = false;
  if (lo_num && hi_num && clip_ok) {
    y = clip(ctx, in, work, lo.valid(), lo.valid() ? lo.to_float() : 0.0, hi.valid(), hi.valid() ? hi.to_float() : 0.0);
  } else {
    y = in;
    if (lo.valid()) y = ctx.op("Max", {y, to_dtype(ctx, lo, work)});
    if (hi.valid()) y = ctx.op("Min", {y, to_dtype(ctx, hi, work)});
  }
  if (work != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
  ctx.set_output(0, y);
}

void clamp_both(Ctx& ctx) { clamp(ctx, opt_input(ctx, 1), opt_input(ctx, 2)); }
void clamp_min(Ctx& ctx) { clamp(ctx, opt_input(ctx, 1), Value()); }
void clamp_max(Ctx& ctx) { clamp(ctx, Value(), opt_input(ctx, 1)); }

}  // namespace

T2O_SYMBOLIC("aten::clamp", 9) { clamp_both(ctx); }
T2O_SYMBOLIC("aten::clamp_", 9) { clamp_both(ctx); }
T2O_SYMBOLIC("aten::clip", 9) { clamp_both(ctx); }
T2O_SYMBOLIC("aten::clip_", 9) { clamp_both(ctx); }
T2O_SYMBOLIC("aten::clamp_min", 9) { clamp_min(ctx); }
T2O_SYMBOLIC("aten::clamp_min_", 9) { clamp_min(ctx); }
T2O_SYMBOLIC("aten::clamp_max", 9) { clamp_max(ctx); }
T2O_SYMBOLIC("aten::clamp_max_", 9) { clamp_max(ctx); }
