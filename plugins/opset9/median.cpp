// Order statistics through a TopK sort (common/sorting.hpp: TopK's form at the target opset):
//   aten::median(Tensor self) -> Tensor                      the lower median of every element
//   aten::median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
//   aten::nanmedian(Tensor self) -> Tensor, aten::nanmedian.dim(...) -> (values, indices)
//   aten::kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)
//   aten::quantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation='linear')
//   aten::quantile.scalar(Tensor self, float q, ...), aten::nanquantile(...) (the same overloads)
//       sorted along dim (or flattened), rank q (n - 1) in the input's type, in double from PyTorch 2.14
//       (common/torch_semantics.hpp) (nanquantile: q (count - 1)
//       of the non-NaN count, per row), floor/ceil/round to even for lower/higher/nearest, the
//       entries below and above blended with PyTorch's lerp (weight 0.5 for midpoint); a row with
//       NaN gives NaN (nanquantile: only an all-NaN row). q must be a constant.
// median picks sorted position (n - 1) / 2; a row holding NaN gives NaN and the index of its first
// NaN (PyTorch's rule). nanmedian ignores NaN: NaN sorts as +inf and the position is
// (count - 1) / 2 of the row's non-NaN count (NaN for an all-NaN row). With dim, PyTorch selects
// by (value, index), which is the stable sort TopK does from opset 11: indices match on ties too
// (with dim, opset >= 11 is required). kthvalue takes position k - 1 of the k smallest; for tied
// values PyTorch's quickselect picks an unspecified index, here the one TopK returns first.
// NaN sorts as +inf (PyTorch puts it after +inf: a row holding both may give the index of a NaN
// where PyTorch gives that of a +inf, the value is right). For an all-NaN row, nanmedian's index
// in PyTorch is whatever std::nth_element leaves (every entry compares equal); here it is 0.
#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "common/shape_ops.hpp"
#include "common/sorting.hpp"
#include "common/torch_semantics.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// The entries of `sorted` at per-row positions `pos` (int64, `sorted`'s shape with 1 at axis),
// keeping the axis: GatherElements from opset 11, a one-hot selection summed before.
Value pick_at(Ctx& ctx, const Value& sorted, const Value& pos, int64_t axis, int64_t rank, int64_t n, t2o_dtype dt) {
  if (has(ctx, feature::kGatherElements)) return ctx.op("GatherElements", {sorted, pos}, {Attr::i("axis", axis)});
  if (n < 0) require(ctx, feature::kGatherElements, "a dynamic reduced axis");
  std::vector<int64_t> ids, shape((size_t)rank, 1);
  for (int64_t i = 0; i < n; ++i) ids.push_back(i);
  shape[(size_t)axis] = n;
  Value range = ctx.tensor(T2O_DTYPE_INT64, shape, ids.data(), ids.size() * sizeof(int64_t));
  Value hit = ctx.op("Equal", {range, pos});
  Value zero = ctx.scalar(dt, 0.0);
  return reduce(ctx, "ReduceSum", ctx.op("Where", {hit, sorted, zero}), {axis}, true);
}

struct Reduced {
  Value x;        // TorchScript input, or a typed ONNX value standing for it
  int64_t axis;   // the reduced axis
  int64_t rank;
  bool flat;      // no `dim`: every element (result 0-d)
};

// `dim`: the dim argument, or an invalid Value for "every element".
Reduced reduced_input(Ctx& ctx, const Value& dim) {
  bool has_dim = dim.valid();
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  if (!has_dim || r == 0) {
    int64_t numel = 1;
    for (auto d : x.dims()) numel = (d < 0 || numel < 0) ? -1 : numel * d;
    Value flat = typed(ctx, ctx.op("Reshape", {ctx.as_onnx(x), ctx.const_i64({-1})}), x.dtype(), 1, {numel});
    return {flat, 0, 1, true};
  }
  if (!dim.is_const()) unsupported(ctx.kind() + ": argument 'dim' computed at run time");
  return {x, normalize_axis(ctx, dim.to_int(), r), r, false};
}

// Binds values (and indices when the op has them), dropping or keeping the reduced axis.
void bind(Ctx& ctx, const Reduced& in, Value v, Value i, bool keepdim) {
  bool has_indices = ctx.num_outputs() > 1;
  if (in.flat) {  // 0-d result (a 0-d input with dim also lands here)
    v = squeeze(ctx, v, {0});
    ctx.set_output(0, v);
    if (has_indices) ctx.set_output(1, squeeze(ctx, i, {0}));
    return;
  }
  if (!keepdim) {
    v = squeeze(ctx, v, {in.axis});
    if (has_indices) i = squeeze(ctx, i, {in.axis});
  }
  ctx.set_output(0, v);
  if (has_indices) ctx.set_output(1, i);
}

void median(Ctx& ctx, bool has_dim, bool ignore_nan) {
  // PyTorch picks the median by (value, index) order: TopK must break ties by index.
  if (has_dim) require(ctx, feature::kStableTopK, "with dim (PyTorch picks the median by (value, index) order)");
  Reduced in = reduced_input(ctx, has_dim ? ctx.input(1) : Value());
  bool keepdim = has_dim && ctx.input(2).to_bool();
  t2o_dtype dt = in.x.dtype();
  bool floating = is_float_dtype(dt);
  int64_t n = in.x.dim((int32_t)in.axis);
  Value xin = ctx.as_onnx(in.x);
  Value nan_mask = floating ? ctx.op("IsNaN", {xin}) : Value();
  Value sort_in = in.x;
  if (ignore_nan && floating) {
    std::vector<int64_t> dims = in.x.dims();
    sort_in = typed(ctx, ctx.op("Where", {nan_mask, ctx.scalar(dt, INFINITY), xin}), dt, (int32_t)in.rank, dims);
  }
  auto sorted = topk_form(ctx, sort_in, Value(), in.axis, false, has(ctx, feature::kStableTopK));
  Value pos;
  if (ignore_nan && floating) {
    Value valid = ctx.op("Cast", {ctx.op("Not", {nan_mask})}, {Attr::i("to", T2O_DTYPE_INT64)});
    Value count = reduce(ctx, "ReduceSum", valid, {in.axis}, true);
    pos = ctx.op("Div", {ctx.op("Sub", {count, ctx.scalar_i64(1)}), ctx.scalar_i64(2)});  // 0 when count is 0
    // pos has the input's shape with 1 at axis (keepdims), as GatherElements needs.
    Value v = pick_at(ctx, sorted.first, pos, in.axis, in.rank, n, dt);
    Value i = pick_at(ctx, sorted.second, pos, in.axis, in.rank, n, T2O_DTYPE_INT64);
    v = ctx.op("Where", {ctx.op("Equal", {count, ctx.scalar_i64(0)}), ctx.scalar(dt, NAN), v});
    return bind(ctx, in, v, i, keepdim);
  }
  Value v, i;
  if (n >= 0) {
    Value p = ctx.const_i64({(n - 1) / 2});
    v = ctx.op("Gather", {sorted.first, p}, {Attr::i("axis", in.axis)});
    i = ctx.op("Gather", {sorted.second, p}, {Attr::i("axis", in.axis)});
  } else {
    Value p = ctx.op("Div", {ctx.op("Sub", {dims_tensor(ctx, in.x, {in.axis}), ctx.const_i64({1})}), ctx.const_i64({2})});
    v = ctx.op("Gather", {sorted.first, p}, {Attr::i("axis", in.axis)});
    i = ctx.op("Gather", {sorted.second, p}, {Attr::i("axis", in.axis)});
  }
  if (floating) {
    // A row with NaN: NaN, and the index of its first NaN.
    Value nan_i32 = ctx.op("Cast", {nan_mask}, {Attr::i("to", T2O_DTYPE_INT32)});
    Value any = ctx.op("Cast", {reduce(ctx, "ReduceMax", nan_i32, {in.axis}, true)}, {Attr::i("to", T2O_DTYPE_BOOL)});
    Value first = ctx.op("ArgMax", {nan_i32}, {Attr::i("axis", in.axis), Attr::i("keepdims", 1)});
    v = ctx.op("Where", {any, ctx.scalar(dt, NAN), v});
    i = ctx.op("Where", {any, first, i});
  }
  bind(ctx, in, v, i, keepdim);
}

void kthvalue(Ctx& ctx) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  if (!ctx.input(1).is_const() || !ctx.input(2).is_const())
    unsupported("aten::kthvalue: arguments 'k' and 'dim' must be constant");
  int64_t k = ctx.input(1).to_int();
  bool keepdim = ctx.input(3).to_bool();
  if (r == 0) {
    if (k != 1) fail("aten::kthvalue: k=" + std::to_string(k) + " out of range for a 0-d tensor");
    ctx.set_output(0, x);
    return ctx.set_output(1, ctx.scalar_i64(0));
  }
  int64_t axis = normalize_axis(ctx, ctx.input(2).to_int(), r);
  int64_t n = x.dim((int32_t)axis);
  if (k < 1 || (n >= 0 && k > n)) fail("aten::kthvalue: k=" + std::to_string(k) + " out of range");
  // NaN sorts last in PyTorch: sort with NaN as +inf; the k-th value is NaN when the row has fewer
  // than k non-NaN entries.
  t2o_dtype dt = x.dtype();
  bool floating = is_float_dtype(dt);
  Value sort_in = x, nan_mask;
  if (floating) {
    Value xin = ctx.as_onnx(x);
    nan_mask = ctx.op("IsNaN", {xin});
    sort_in = typed(ctx, ctx.op("Where", {nan_mask, ctx.scalar(dt, INFINITY), xin}), dt, (int32_t)r, x.dims());
  }
  auto smallest = topk_form(ctx, sort_in, ctx.input(1), axis, false, false);
  Value p = keepdim ? ctx.const_i64({k - 1}) : ctx.scalar_i64(k - 1);
  Value v = ctx.op("Gather", {smallest.first, p}, {Attr::i("axis", axis)});
  if (floating) {
    Value valid = ctx.op("Cast", {ctx.op("Not", {nan_mask})}, {Attr::i("to", T2O_DTYPE_INT64)});
    Value count = reduce(ctx, "ReduceSum", valid, {axis}, keepdim);
    v = ctx.op("Where", {ctx.op("Less", {count, ctx.scalar_i64(k)}), ctx.scalar(dt, NAN), v});
  }
  ctx.set_output(0, v);
  ctx.set_output(1, ctx.op("Gather", {smallest.second, p}, {Attr::i("axis", axis)}));
}

// ---- quantile / nanquantile ----

enum class Interp { Linear, Lower, Higher, Midpoint, Nearest };

Interp parse_interp(Ctx& ctx, const Value& v) {
  std::string s = v.valid() ? v.to_string() : "linear";
  if (s == "linear") return Interp::Linear;
  if (s == "lower") return Interp::Lower;
  if (s == "higher") return Interp::Higher;
  if (s == "midpoint") return Interp::Midpoint;
  if (s == "nearest") return Interp::Nearest;
  fail(ctx.kind() + ": interpolation='" + s + "' (linear, lower, higher, midpoint or nearest)");
}

// q values: a Python float, or a constant 0-d / 1-D tensor (vector = true for 1-D).
std::vector<double> q_values(Ctx& ctx, const Value& q, bool& vector) {
  vector = false;
  if (q.kind() == T2O_KIND_FLOAT || q.kind() == T2O_KIND_INT) {
    if (!q.is_const()) unsupported(ctx.kind() + ": argument 'q' computed at run time");
    return {q.to_float()};
  }
  if (q.kind() != T2O_KIND_TENSOR || !q.is_const()) unsupported(ctx.kind() + ": argument 'q' must be a constant");
  if (q.rank() > 1) fail(ctx.kind() + ": q must be a scalar or a 1-D tensor");
  vector = q.rank() == 1;
  auto data = q.tensor_data();
  std::vector<double> out;
  if (q.dtype() == T2O_DTYPE_DOUBLE) {
    auto p = static_cast<const double*>(data.first);
    out.assign(p, p + data.second / sizeof(double));
  } else if (q.dtype() == T2O_DTYPE_FLOAT) {
    auto p = static_cast<const float*>(data.first);
    for (size_t i = 0; i < data.second / sizeof(float); ++i) out.push_back(p[i]);
  } else {
    fail(ctx.kind() + ": q must have the input's floating type");
  }
  return out;
}

// PyTorch's lerp: a + w (b - a) for w < 0.5, else b - (b - a)(1 - w).
Value lerp(Ctx& ctx, const Value& a, const Value& b, const Value& w, t2o_dtype dt) {
  Value diff = ctx.op("Sub", {b, a});
  Value low = ctx.op("Add", {a, ctx.op("Mul", {w, diff})});
  Value high = ctx.op("Sub", {b, ctx.op("Mul", {diff, ctx.op("Sub", {ctx.scalar(dt, 1.0), w})})});
  return ctx.op("Where", {ctx.op("Less", {w, ctx.scalar(dt, 0.5)}), low, high});
}

// The rank q * (n - 1) of q read as the input's type T: computed in T, or in double from PyTorch 2.14
// (common/torch_semantics.hpp; the same for a double input).
template <typename T>
Value quantile_const_rank(Ctx& ctx, const Value& sorted, int64_t axis, int64_t n, double q, Interp interp,
                          t2o_dtype dt) {
  double rank = follows(ctx, torch_change::kQuantileDoubleRank) ? (double)(T)q * (double)(n - 1)
                                                                 : (double)((T)q * (T)(n - 1));
  if (interp == Interp::Lower) rank = std::floor(rank);
  else if (interp == Interp::Higher) rank = std::ceil(rank);
  else if (interp == Interp::Nearest) rank = std::nearbyint(rank);  // half to even, as Tensor.round
  int64_t below = (int64_t)rank, above = (int64_t)std::ceil(rank);
  Value vb = ctx.op("Gather", {sorted, ctx.const_i64({below})}, {Attr::i("axis", axis)});
  if (interp != Interp::Linear && interp != Interp::Midpoint) return vb;
  Value va = ctx.op("Gather", {sorted, ctx.const_i64({above})}, {Attr::i("axis", axis)});
  T w = interp == Interp::Midpoint ? (T)0.5 : (T)(rank - (double)below);
  return lerp(ctx, vb, va, ctx.scalar(dt, (double)w), dt);
}

void quantile(Ctx& ctx, bool ignore_nan) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  t2o_dtype dt = x.dtype();
  if (dt != T2O_DTYPE_FLOAT && dt != T2O_DTYPE_DOUBLE) fail(ctx.kind() + ": input must be float or double");
  bool vector = false;
  std::vector<double> qs = q_values(ctx, ctx.input(1), vector);
  for (double q : qs)
    if (!(q >= 0 && q <= 1)) fail(ctx.kind() + ": q=" + std::to_string(q) + " outside [0, 1]");
  Value dim = opt_input(ctx, 2);
  bool keepdim = ctx.input(3).to_bool();
  Interp interp = parse_interp(ctx, opt_input(ctx, 4));
  Reduced in = reduced_input(ctx, dim);
  int64_t n = in.x.dim((int32_t)in.axis);
  if (n < 0) unsupported(ctx.kind() + ": the reduced axis must be static");
  Value xin = ctx.as_onnx(in.x);
  Value nan_mask = ctx.op("IsNaN", {xin});
  Value sort_in = in.x;
  if (ignore_nan)
    sort_in = typed(ctx, ctx.op("Where", {nan_mask, ctx.scalar(dt, INFINITY), xin}), dt, (int32_t)in.rank, in.x.dims());
  Value sorted = topk_form(ctx, sort_in, Value(), in.axis, false, false).first;
  Value nan_value = ctx.scalar(dt, NAN);
  std::vector<Value> parts;
  for (double q : qs) {
    Value v;
    if (!ignore_nan) {
      v = dt == T2O_DTYPE_DOUBLE ? quantile_const_rank<double>(ctx, sorted, in.axis, n, q, interp, dt)
                                 : quantile_const_rank<float>(ctx, sorted, in.axis, n, q, interp, dt);
      Value any = ctx.op("Cast", {reduce(ctx, "ReduceMax", ctx.op("Cast", {nan_mask}, {Attr::i("to", T2O_DTYPE_INT32)}),
                                         {in.axis}, true)},
                         {Attr::i("to", T2O_DTYPE_BOOL)});
      v = ctx.op("Where", {any, nan_value, v});
    } else {
      // Ranks per row from the non-NaN count, in the type PyTorch computes them in: the input's, or
      // double from PyTorch 2.14 (of q read as the input's type).
      t2o_dtype rt = follows(ctx, torch_change::kQuantileDoubleRank) ? T2O_DTYPE_DOUBLE : dt;
      double qr = dt == T2O_DTYPE_FLOAT ? (double)(float)q : q;
      Value count = reduce(ctx, "ReduceSum", ctx.op("Cast", {ctx.op("Not", {nan_mask})}, {Attr::i("to", rt)}),
                           {in.axis}, true);
      Value rank = ctx.op("Mul", {ctx.scalar(rt, qr), ctx.op("Sub", {count, ctx.scalar(rt, 1.0)})});
      rank = ctx.op("Max", {rank, ctx.scalar(rt, 0.0)});
      if (interp == Interp::Lower) rank = ctx.op("Floor", {rank});
      else if (interp == Interp::Higher) rank = ctx.op("Ceil", {rank});
      else if (interp == Interp::Nearest) {
        require(ctx, feature::kRound, "interpolation='nearest'");
        rank = ctx.op("Round", {rank});
      }
      Value below = ctx.op("Cast", {ctx.op("Floor", {rank})}, {Attr::i("to", T2O_DTYPE_INT64)});
      v = pick_at(ctx, sorted, below, in.axis, in.rank, n, dt);
      if (interp == Interp::Linear || interp == Interp::Midpoint) {
        Value above = ctx.op("Cast", {ctx.op("Ceil", {rank})}, {Attr::i("to", T2O_DTYPE_INT64)});
        Value va = pick_at(ctx, sorted, above, in.axis, in.rank, n, dt);
        Value w = interp == Interp::Midpoint ? ctx.scalar(dt, 0.5)
                                             : ctx.op("Sub", {rank, ctx.op("Cast", {below}, {Attr::i("to", rt)})});
        if (rt != dt) w = ctx.op("Cast", {w}, {Attr::i("to", dt)});
        v = lerp(ctx, v, va, w, dt);
      }
      // An all-NaN row (its sorted entries are the +inf standing for NaN).
      Value empty = ctx.op("Not", {ctx.op("Greater", {count, ctx.scalar(rt, 0.0)})});
      v = ctx.op("Where", {empty, nan_value, v});
    }
    // v keeps the reduced axis with size 1.
    if (in.flat) v = keepdim ? ctx.op("Reshape", {v, ctx.const_i64(std::vector<int64_t>((size_t)r, 1))}) : squeeze(ctx, v, {0});
    else if (!keepdim) v = squeeze(ctx, v, {in.axis});
    parts.push_back(vector ? unsqueeze(ctx, v, {0}) : v);
  }
  if (!vector) return ctx.set_output(0, parts[0]);
  ctx.set_output(0, parts.size() == 1 ? parts[0] : ctx.op("Concat", parts, {Attr::i("axis", 0)}));
}

}  // namespace

// median(self) has one input; median.dim(self, dim, keepdim) three.
T2O_SYMBOLIC("aten::median", 9) { median(ctx, ctx.num_inputs() == 3, false); }
T2O_SYMBOLIC("aten::nanmedian", 9) { median(ctx, ctx.num_inputs() == 3, true); }
T2O_SYMBOLIC("aten::kthvalue", 9) { kthvalue(ctx); }
T2O_SYMBOLIC("aten::quantile", 9) { quantile(ctx, false); }
T2O_SYMBOLIC("aten::nanquantile", 9) { quantile(ctx, true); }
