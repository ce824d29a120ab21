// Vector p-norms: aten::norm (Scalar / ScalarOpt_dtype / ScalarOpt_dim / ScalarOpt_dim_dtype),
// aten::frobenius_norm, aten::linalg_vector_norm. (torch.norm(x, 'fro') traces to frobenius_norm;
// F.normalize traces to norm + clamp_min + expand_as + div.)
//   p = 2: ReduceL2   p = 1: ReduceL1   p = inf / -inf: ReduceMax / ReduceMin of |x|
//   p = 0: number of nonzero elements    other p: (sum |x|^p)^(1/p)
// Distances: aten::pairwise_distance (p-norm of x1 - x2 + eps over the last axis), aten::cdist
// (p-norm over the last axis of the broadcast differences [.., P, 1, M] - [.., 1, R, M]).
// Matrix norms: aten::linalg_matrix_norm, aten::linalg_norm (vector or matrix by ord and dim).
//   'fro': ReduceL2 over both dims   ord 1 / -1: max / min over columns of the column sums of |x|
//   ord inf / -inf: max / min over rows of the row sums of |x|
//   'nuc', ord 2 / -2 need singular values: ONNX has no SVD, refused. (aten::nuclear_norm is left
//   unregistered rather than registered to always refuse: the registry, the support matrix and
//   `check` without example inputs then all report it as not convertible.)
#include <torch2onnx/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/reduce.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

Value p_norm(Ctx& ctx, const Value& x, int64_t rank, t2o_dtype dt, double p, const std::vector<int64_t>& axes,
             bool keepdim) {
  Value in = cast_to(ctx, ctx.as_onnx(x), dt);
  if (p == 0.0) {
    // Cast to bool is x != 0 (NaN -> true, as in PyTorch); Equal lacks float types before opset 11.
    Value nz = ctx.op("Cast", {in}, {Attr::i("to", T2O_DTYPE_BOOL)});
    Value f = ctx.op("Cast", {nz}, {Attr::i("to", dt)});
    return rank == 0 ? f : reduce(ctx, "ReduceSum", f, axes, keepdim);
  }
  if (rank == 0) return ctx.op("Abs", {in});  // |x| for every p != 0
  if (p == 2.0) return reduce(ctx, "ReduceL2", in, axes, keepdim);
  if (p == 1.0) return reduce(ctx, "ReduceL1", in, axes, keepdim);
  Value a = ctx.op("Abs", {in});
  if (std::isinf(p)) return reduce(ctx, p > 0 ? "ReduceMax" : "ReduceMin", a, axes, keepdim);
  Value s = reduce(ctx, "ReduceSum", ctx.op("Pow", {a, ctx.scalar(dt, p)}), axes, keepdim);
  return ctx.op("Pow", {s, ctx.scalar(dt, 1.0 / p)});
}

double p_arg(Ctx& ctx, const Value& v, const char* name) {
  if (!v.valid() || v.is_none()) return 2.0;
  if (!v.is_const()) unsupported(ctx.kind() + ": argument '" + name + "' computed at run time");
  if (v.kind() == T2O_KIND_STRING) unsupported(ctx.kind() + ": " + name + "='" + v.to_string() + "'");
  return v.to_float();
}

std::string ord_text(const std::string& ord, double p) {
  if (ord != "num") return "'" + ord + "'";
  if (std::isinf(p)) return p > 0 ? "inf" : "-inf";
  std::string s = std::to_string(p);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

[[noreturn]] void refuse_svd(Ctx& ctx, const std::string& ord) {
  unsupported(ctx.kind() + ": ord=" + ord + " needs singular values (SVD), which ONNX has no operator for");
}

// Matrix norm of x over the two axes `dims` (normalized, distinct). `ord` is "fro", "nuc" or
// "num" (a number: p).
Value matrix_norm(Ctx& ctx, const Value& x, t2o_dtype dt, const std::string& ord, double p,
                  const std::vector<int64_t>& dims, bool keepdim) {
  if (dims.size() != 2 || dims[0] == dims[1])
    fail(ctx.kind() + ": a matrix norm needs two distinct dims, got " + str(dims));
  if (ord == "fro") return p_norm(ctx, x, x.rank(), dt, 2.0, dims, keepdim);
  if (ord == "nuc" || p == 2.0 || p == -2.0) refuse_svd(ctx, ord_text(ord, p));
  if (!(p == 1.0 || p == -1.0 || std::isinf(p)))
    fail(ctx.kind() + ": matrix norm ord=" + ord_text(ord, p) + " (only 'fro', 'nuc', inf, -inf, 1, -1, 2, -2 are defined)");
  // ord +-1: sum over dims[0] (column sums), then max/min over dims[1]; ord +-inf: the other way.
  int64_t sum_axis = std::isinf(p) ? dims[1] : dims[0];
  int64_t pick_axis = std::isinf(p) ? dims[0] : dims[1];
  Value a = ctx.op("Abs", {cast_to(ctx, ctx.as_onnx(x), dt)});
  Value sums = reduce(ctx, "ReduceSum", a, {sum_axis}, true);
  Value y = reduce(ctx, p > 0 ? "ReduceMax" : "ReduceMin", sums, {pick_axis}, true);
  if (!keepdim) y = squeeze(ctx, y, {std::min(dims[0], dims[1]), std::max(dims[0], dims[1])});
  return y;
}

// "fro" / "nuc" for a string ord, "num" for a number (its value in *p).
std::string ord_arg(Ctx& ctx, const Value& v, double* p) {
  *p = 0.0;
  if (!v.is_const()) unsupported(ctx.kind() + ": argument 'ord' computed at run time");
  if (v.kind() == T2O_KIND_STRING) {
    std::string s = v.to_string();
    if (s != "fro" && s != "nuc") fail(ctx.kind() + ": ord='" + s + "'");
    return s;
  }
  *p = v.to_float();
  return "num";
}

}  // namespace

T2O_SYMBOLIC("aten::norm", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  t2o_dtype dt = output_dtype(ctx, 0, x.dtype());
  double p = p_arg(ctx, opt_input(ctx, 1), "p");
  std::vector<int64_t> axes;
  bool keepdim = false;
  // (self, p) and (self, p, dtype) reduce everything; (self, p, dim, keepdim[, dtype]) reduce dim.
  if (ctx.num_inputs() >= 4) {
    axes = reduce_axes(ctx, ctx.input(2), r);
    keepdim = ctx.input(3).to_bool();
  }
  ctx.set_output(0, p_norm(ctx, x, r, dt, p, axes, keepdim));
}

// frobenius_norm(self) / frobenius_norm.dim(self, int[1] dim, bool keepdim=False): [] = every axis.
T2O_SYMBOLIC("aten::frobenius_norm", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  std::vector<int64_t> axes;
  bool keepdim = false;
  if (ctx.num_inputs() >= 3) {
    axes = reduce_axes(ctx, ctx.input(1), r);
    keepdim = ctx.input(2).to_bool();
  }
  ctx.set_output(0, p_norm(ctx, x, r, output_dtype(ctx, 0, x.dtype()), 2.0, axes, keepdim));
}

// linalg_vector_norm(self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype)
T2O_SYMBOLIC("aten::linalg_vector_norm", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  double p = p_arg(ctx, opt_input(ctx, 1), "ord");
  std::vector<int64_t> axes = reduce_axes(ctx, opt_input(ctx, 2), r);
  bool keepdim = ctx.num_inputs() > 3 && ctx.input(3).to_bool();
  ctx.set_output(0, p_norm(ctx, x, r, output_dtype(ctx, 0, x.dtype()), p, axes, keepdim));
}

// linalg_matrix_norm(self, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *, dtype=None) and
// linalg_matrix_norm.str_ord(self, str ord='fro', ...).
T2O_SYMBOLIC("aten::linalg_matrix_norm", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  if (r < 2) fail("aten::linalg_matrix_norm: needs an input of rank >= 2, got " + std::to_string(r));
  double p;
  std::string ord = ord_arg(ctx, ctx.input(1), &p);
  Value dim = ctx.input(2);
  if (!all_const(dim)) unsupported("aten::linalg_matrix_norm: argument 'dim' computed at run time");
  std::vector<int64_t> dims = normalize_axes(ctx, dim.to_ints(), r);
  bool keepdim = ctx.input(3).to_bool();
  ctx.set_output(0, matrix_norm(ctx, x, output_dtype(ctx, 0, x.dtype()), ord, p, dims, keepdim));
}

// linalg_norm(self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, dtype=None) and
// linalg_norm.ord_str(self, str ord, ...): a vector norm for one dim (or a 1-D input, or ord=None
// without dim: every element), a matrix norm for two dims (or a 2-D input).
T2O_SYMBOLIC("aten::linalg_norm", 9) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  t2o_dtype dt = output_dtype(ctx, 0, x.dtype());
  Value ord_v = ctx.input(1), dim_v = opt_input(ctx, 2);
  bool keepdim = ctx.input(3).to_bool();
  std::vector<int64_t> dims;
  if (dim_v.valid()) {
    if (!all_const(dim_v)) unsupported("aten::linalg_norm: argument 'dim' computed at run time");
    dims = normalize_axes(ctx, dim_v.to_ints(), r);
  }
  if (ord_v.is_none()) {
    // 2-norm of the flattened input or of one dim; Frobenius norm over two dims (the same sum).
    if (dims.size() > 2) fail("aten::linalg_norm: dim=" + str(dims) + " has more than two entries");
    return ctx.set_output(0, p_norm(ctx, x, r, dt, 2.0, dims, keepdim));
  }
  double p;
  std::string ord = ord_arg(ctx, ord_v, &p);
  if (dims.empty()) {
    if (r == 1 || r == 2) {
      for (int64_t i = 0; i < r; ++i) dims.push_back(i);
    } else {
      fail("aten::linalg_norm: ord given without dim needs a 1-D or 2-D input, got rank " + std::to_string(r));
    }
  }
  if (dims.size() == 1) {
    if (ord != "num") fail("aten::linalg_norm: ord=" + ord_text(ord, p) + " is a matrix norm but dim has one entry");
    return ctx.set_output(0, p_norm(ctx, x, r, dt, p, dims, keepdim));
  }
  ctx.set_output(0, matrix_norm(ctx, x, dt, ord, p, dims, keepdim));
}

// pairwise_distance(x1, x2, float p=2, float eps=1e-6, bool keepdim=False)
T2O_SYMBOLIC("aten::pairwise_distance", 9) {
  Value a = ctx.input(0), b = ctx.input(1);
  int64_t r = std::max(a.rank(), b.rank());
  known_rank(ctx, a);
  known_rank(ctx, b);
  t2o_dtype dt = output_dtype(ctx, 0, a.dtype());
  double p = p_arg(ctx, ctx.input(2), "p");
  if (!ctx.input(3).is_const()) unsupported("aten::pairwise_distance: argument 'eps' must be constant");
  Value diff = ctx.op("Add", {ctx.op("Sub", {to_dtype(ctx, a, dt), to_dtype(ctx, b, dt)}), ctx.scalar(dt, ctx.input(3).to_float())});
  bool keepdim = ctx.input(4).to_bool();
  std::vector<int64_t> axes;
  if (r > 0) axes.push_back(r - 1);
  ctx.set_output(0, p_norm(ctx, typed(ctx, diff, dt, (int32_t)r), r, dt, p, axes, keepdim));
}

// cdist(x1 [.., P, M], x2 [.., R, M], float p=2, int? compute_mode) -> [.., P, R]
T2O_SYMBOLIC("aten::cdist", 9) {
  Value a = ctx.input(0), b = ctx.input(1);
  int64_t ra = a.rank(), rb = b.rank();
  if (ra < 2 || rb < 2) unsupported("aten::cdist: inputs of rank >= 2 needed");
  t2o_dtype dt = output_dtype(ctx, 0, a.dtype());
  double p = p_arg(ctx, ctx.input(2), "p");
  Value ea = unsqueeze(ctx, to_dtype(ctx, a, dt), {ra - 1}), eb = unsqueeze(ctx, to_dtype(ctx, b, dt), {rb - 2});
  int64_t r = std::max(ra, rb) + 1;
  Value diff = typed(ctx, ctx.op("Sub", {ea, eb}), dt, (int32_t)r);
  ctx.set_output(0, p_norm(ctx, diff, r, dt, p, {r - 1}, false));
}
