// aten::searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False,
//     str? side=None, Tensor? sorter=None) -> Tensor
// aten::searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, ...) -> Tensor
// The insertion point of each value is the number of boundaries below it (left: seq < v) or at
// most it (right: seq <= v), counted by comparing the values against every boundary of their row
// (v[..., :, None] with seq[..., None, :]) and summing. side='right'/'left' overrides `right`;
// `sorter` first reorders the sequence (Gather for a 1-D sequence, GatherElements from opset 11).
#include <torch2onnx/plugin.hpp>

#include "common/promote.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::searchsorted", 9) {
  Value seq = ctx.input(0), v = ctx.input(1);
  int64_t sr = known_rank(ctx, seq, "sorted_sequence", 1);
  bool out_int32 = ctx.input(2).to_bool(), right = ctx.input(3).to_bool();
  Value side = opt_input(ctx, 4), sorter = opt_input(ctx, 5);
  if (side.valid()) {
    std::string s = side.to_string();
    if (s != "left" && s != "right") fail("aten::searchsorted: side='" + s + "' (left or right)");
    right = s == "right";
  }
  t2o_dtype dt = result_type({seq, v});
  // Less in ONNX Runtime: float, double, int32, int64.
  if (dt == T2O_DTYPE_FLOAT16 || dt == T2O_DTYPE_BFLOAT16) dt = T2O_DTYPE_FLOAT;
  else if (!is_float_dtype(dt) && dt != T2O_DTYPE_INT32) dt = T2O_DTYPE_INT64;
  Value s = to_dtype(ctx, seq, dt);
  if (sorter.valid()) {
    Value order = to_dtype(ctx, sorter, T2O_DTYPE_INT64);
    if (sr == 1) s = ctx.op("Gather", {s, order}, {Attr::i("axis", 0)});
    else {
      require(ctx, feature::kGatherElements, "a sorter for an N-D sequence");
      s = ctx.op("GatherElements", {s, order}, {Attr::i("axis", sr - 1)});
    }
  }
  bool scalar = v.kind() != T2O_KIND_TENSOR;
  int64_t vr = scalar ? 0 : known_rank(ctx, v, "values");
  if (sr > 1 && !scalar && vr != sr) fail("aten::searchsorted: an N-D sequence needs values of the same rank");
  Value x = to_dtype(ctx, v, dt);
  Value xe, se;
  int64_t count_axis;
  if (sr == 1) {
    xe = unsqueeze(ctx, x, {vr});  // (..., 1) against (M)
    se = s;
    count_axis = vr;
  } else if (scalar) {
    xe = x;                        // () against (..., M)
    se = s;
    count_axis = sr - 1;
  } else {
    xe = unsqueeze(ctx, x, {vr});  // (..., K, 1) against (..., 1, M)
    se = unsqueeze(ctx, s, {sr - 1});
    count_axis = vr;
  }
  Value hit = right ? ctx.op("Not", {ctx.op("Less", {xe, se})}) : ctx.op("Less", {se, xe});
  Value count = reduce(ctx, "ReduceSum", ctx.op("Cast", {hit}, {Attr::i("to", T2O_DTYPE_INT64)}), {count_axis}, false);
  ctx.set_output(0, out_int32 ? ctx.op("Cast", {count}, {Attr::i("to", T2O_DTYPE_INT32)}) : count);
}
