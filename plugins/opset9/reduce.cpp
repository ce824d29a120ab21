// Reductions other than sum/mean: aten::prod, amax, amin, logsumexp, aminmax, all, any,
// count_nonzero.
// Argument handling (dim/keepdim/dtype) is shared in common/reduce.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/reduce.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// all/any(self), all/any.dim(self, int dim, bool keepdim) and all/any.dims(self, int[]? dim=None,
// bool keepdim=False) (PyTorch 2.2+): truth of every/some element. ONNX has no boolean reduction, so
// x != 0 is reduced as int32 0/1 with ReduceMin (all) / ReduceMax (any). In .dims, None reduces
// every axis and an empty list none (PyTorch returns x != 0 itself).
void all_any(Ctx& ctx, const char* op_type) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  std::vector<int64_t> axes;
  bool keepdim = false, none = r == 0;
  if (ctx.num_inputs() >= 3) {
    Value dim = ctx.input(1);
    if (dim.kind() == T2O_KIND_LIST && dim.list_size() == 0) none = true;
    axes = reduce_axes(ctx, dim, r);
    keepdim = ctx.input(2).to_bool();
  }
  t2o_dtype out = output_dtype(ctx, 0, T2O_DTYPE_BOOL);  // bool, or uint8 for uint8 inputs
  Value b = cast_to(ctx, ctx.as_onnx(x), T2O_DTYPE_BOOL);  // Cast to bool: nonzero (and NaN) -> true
  Value i = ctx.op("Cast", {b}, {Attr::i("to", T2O_DTYPE_INT32)});
  Value y = none ? i : reduce(ctx, op_type, i, axes, keepdim);
  ctx.set_output(0, ctx.op("Cast", {y}, {Attr::i("to", out)}));
}

}  // namespace

// prod(self, *, dtype) / prod.dim_int(self, int dim, bool keepdim, *, dtype)
T2O_SYMBOLIC("aten::prod", 9) { reduce_symbolic(ctx, "ReduceProd"); }
// amax/amin(self, int[1] dim=[], bool keepdim=False): [] reduces every axis.
T2O_SYMBOLIC("aten::amax", 9) { reduce_symbolic(ctx, "ReduceMax"); }
T2O_SYMBOLIC("aten::amin", 9) { reduce_symbolic(ctx, "ReduceMin"); }
// logsumexp(self, int[1] dim, bool keepdim=False); integer inputs give a float output (cast first).
T2O_SYMBOLIC("aten::logsumexp", 9) { reduce_symbolic(ctx, "ReduceLogSumExp"); }

// aminmax(self, *, int? dim=None, bool keepdim=False) -> (min, max)
T2O_SYMBOLIC("aten::aminmax", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  std::vector<int64_t> axes = reduce_axes(ctx, opt_input(ctx, 1), r);
  bool keepdim = ctx.num_inputs() > 2 && ctx.input(2).to_bool();
  t2o_dtype dt = x.dtype(), compute = minmax_compute_dtype(dt);
  Value in = cast_to(ctx, ctx.as_onnx(x), compute);
  for (int32_t k = 0; k < 2; ++k) {
    Value y = r == 0 ? in : reduce(ctx, k == 0 ? "ReduceMin" : "ReduceMax", in, axes, keepdim);
    if (compute != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
    ctx.set_output(k, y);
  }
}

T2O_SYMBOLIC("aten::all", 9) { all_any(ctx, "ReduceMin"); }
T2O_SYMBOLIC("aten::any", 9) { all_any(ctx, "ReduceMax"); }
// _is_all_true / _is_any_true(self) (PyTorch 2.x aten IR, bool self): all() / any() of every element.
T2O_SYMBOLIC("aten::_is_all_true", 9) { all_any(ctx, "ReduceMin"); }
T2O_SYMBOLIC("aten::_is_any_true", 9) { all_any(ctx, "ReduceMax"); }

// count_nonzero(self, int? dim=None) / count_nonzero.dim_IntList(self, int[] dim): int64 count of
// x != 0 (Cast to bool; NaN counts, as in PyTorch). No keepdim.
T2O_SYMBOLIC("aten::count_nonzero", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  std::vector<int64_t> axes = reduce_axes(ctx, opt_input(ctx, 1), r);
  Value nz = cast_to(ctx, ctx.as_onnx(x), T2O_DTYPE_BOOL);
  Value n = ctx.op("Cast", {nz}, {Attr::i("to", T2O_DTYPE_INT64)});
  ctx.set_output(0, r == 0 ? n : reduce(ctx, "ReduceSum", n, axes, false));
}
