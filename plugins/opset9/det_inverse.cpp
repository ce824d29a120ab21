// Determinants and inverses of small matrices with static size, by cofactor (Laplace) expansion
// unrolled on the size, batched over the leading axes (any opset):
//   aten::det(Tensor self) -> Tensor, aten::linalg_det(Tensor A) -> Tensor
//   aten::logdet(Tensor self) -> Tensor                       log(det): NaN for det < 0, -inf for 0
//   aten::slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet), aten::linalg_slogdet(Tensor A) -> (...)
//   aten::inverse(Tensor self) -> Tensor, aten::linalg_inv(Tensor A) -> Tensor   adj(A) / det(A)
// ONNX has no Det below opset 11 and no matrix inverse at all. Minors are shared (memoized by their
// row and column sets), so an n x n determinant costs about n 2^(n-1) multiplications. Sizes are
// limited to kMaxDetOrder (determinants) and kMaxInverseOrder (inverses): beyond them the unrolled
// graph grows too large and the expansion loses accuracy against PyTorch's LU factorization.
// A singular matrix gives inf/NaN entries where PyTorch raises an error. (linalg_inv_ex is not
// converted: its LAPACK `info` output has no equivalent here.)
#include <torch2onnx/plugin.hpp>

#include <map>
#include <utility>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

constexpr int64_t kMaxDetOrder = 6;
constexpr int64_t kMaxInverseOrder = 4;

class Matrix {
 public:
  // x: (..., n, n) of a floating dtype with static n.
  Matrix(Ctx& ctx, const Value& x, int64_t max_order) : ctx_(ctx) {
    int64_t r = x.rank();
    if (r < 2) fail(ctx.kind() + ": input must have at least 2 dims (got rank " + std::to_string(r) + ")");
    n_ = x.dim(r - 1);
    if (n_ < 0 || x.dim(r - 2) < 0)
      unsupported(ctx.kind() + ": matrix size must be static (its last two dims are dynamic)");
    if (x.dim(r - 2) != n_) fail(ctx.kind() + ": matrices must be square, got " + str(x.dims()));
    if (n_ > max_order)
      unsupported(ctx.kind() + ": " + std::to_string(n_) + "x" + std::to_string(n_) + " matrices: unrolled only up to " +
                  std::to_string(max_order) + "x" + std::to_string(max_order));
    if (n_ == 0) unsupported(ctx.kind() + ": empty (0x0) matrices");
    dt_ = x.dtype();
    if (!is_float_dtype(dt_)) fail(ctx.kind() + ": input of a non-floating element type");
    batch_rank_ = r - 2;
    Value in = ctx.as_onnx(x);
    for (int64_t i = 0; i < n_; ++i) {
      Value row = ctx.op("Gather", {in, ctx.scalar_i64(i)}, {Attr::i("axis", batch_rank_)});
      std::vector<Value> cols;
      for (int64_t j = 0; j < n_; ++j)
        cols.push_back(ctx.op("Gather", {row, ctx.scalar_i64(j)}, {Attr::i("axis", batch_rank_)}));
      el_.push_back(cols);
    }
  }

  int64_t n() const { return n_; }
  t2o_dtype dtype() const { return dt_; }
  int64_t batch_rank() const { return batch_rank_; }

  // Determinant of the submatrix on rows `rows` and columns `cols` (bit sets of equal size),
  // expanded along its first row.
  Value minor(uint32_t rows, uint32_t cols) {
    auto key = std::make_pair(rows, cols);
    auto found = memo_.find(key);
    if (found != memo_.end()) return found->second;
    int64_t i = 0;
    while (!(rows & (1u << i))) ++i;
    uint32_t rest = rows & ~(1u << i);
    Value sum;
    int sign = 1;
    for (int64_t j = 0; j < n_; ++j) {
      if (!(cols & (1u << j))) continue;
      Value term = rest == 0 ? el_[i][j] : ctx_.op("Mul", {el_[i][j], minor(rest, cols & ~(1u << j))});
      if (!sum.valid()) sum = sign > 0 ? term : ctx_.op("Neg", {term});
      else sum = ctx_.op(sign > 0 ? "Add" : "Sub", {sum, term});
      sign = -sign;
    }
    memo_[key] = sum;
    return sum;
  }

  uint32_t all() const { return (1u << n_) - 1; }
  Value det() { return minor(all(), all()); }

  // adj(A) / det(A), assembled back into (..., n, n).
  Value inverse() {
    Value d = det();
    std::vector<Value> rows;
    for (int64_t i = 0; i < n_; ++i) {
      std::vector<Value> row;
      for (int64_t j = 0; j < n_; ++j) {
        // inv[i][j] = (-1)^(i+j) M_ji / det
        Value m = n_ == 1 ? ctx_.scalar(dt_, 1.0) : minor(all() & ~(1u << j), all() & ~(1u << i));
        if ((i + j) % 2) m = ctx_.op("Neg", {m});
        Value e = ctx_.op("Div", {m, d});
        row.push_back(unsqueeze(ctx_, e, {batch_rank_}));
      }
      rows.push_back(unsqueeze(ctx_, concat(row), {batch_rank_}));
    }
    return concat(rows);
  }

 private:
  Value concat(const std::vector<Value>& parts) {
    if (parts.size() == 1) return parts[0];
    return ctx_.op("Concat", parts, {Attr::i("axis", batch_rank_)});
  }

  Ctx& ctx_;
  int64_t n_ = 0;
  int64_t batch_rank_ = 0;
  t2o_dtype dt_ = T2O_DTYPE_FLOAT;
  std::vector<std::vector<Value>> el_;
  std::map<std::pair<uint32_t, uint32_t>, Value> memo_;
};

void det(Ctx& ctx) {
  Matrix m(ctx, ctx.input(0), kMaxDetOrder);
  ctx.set_output(0, m.det());
}

void logdet(Ctx& ctx) {
  Matrix m(ctx, ctx.input(0), kMaxDetOrder);
  ctx.set_output(0, ctx.op("Log", {m.det()}));
}

void slogdet(Ctx& ctx) {
  Matrix m(ctx, ctx.input(0), kMaxDetOrder);
  Value d = m.det();
  ctx.set_output(0, ctx.op("Sign", {d}));
  ctx.set_output(1, ctx.op("Log", {ctx.op("Abs", {d})}));
}

void inverse(Ctx& ctx) {
  Matrix m(ctx, ctx.input(0), kMaxInverseOrder);
  ctx.set_output(0, m.inverse());
}

}  // namespace

T2O_SYMBOLIC("aten::det", 9) { det(ctx); }
T2O_SYMBOLIC("aten::linalg_det", 9) { det(ctx); }
T2O_SYMBOLIC("aten::logdet", 9) { logdet(ctx); }
T2O_SYMBOLIC("aten::slogdet", 9) { slogdet(ctx); }
T2O_SYMBOLIC("aten::linalg_slogdet", 9) { slogdet(ctx); }
T2O_SYMBOLIC("aten::inverse", 9) { inverse(ctx); }
T2O_SYMBOLIC("aten::linalg_inv", 9) { inverse(ctx); }
