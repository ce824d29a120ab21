// aten::tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=4, Layout? layout=None,
//     Device? device=None, bool? pin_memory=None) -> Tensor
// aten::triu_indices(...) (same arguments)
// The (2, N) coordinates of the lower (j - i <= offset) or upper (j - i >= offset) triangle of a
// row x col matrix, in row-major order, computed at export time: the sizes must be constants.
#include <torch2onnx/plugin.hpp>

#include "common/constants.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void triangle_indices(Ctx& ctx, bool lower) {
  for (int i = 0; i < 3; ++i)
    if (!ctx.input(i).is_const())
      unsupported(ctx.kind() + ": argument '" + (i == 0 ? "row" : i == 1 ? "col" : "offset") +
                  "' computed at run time (the sizes must be constants)");
  int64_t rows = ctx.input(0).to_int(), cols = ctx.input(1).to_int(), offset = ctx.input(2).to_int();
  if (rows < 0 || cols < 0) fail(ctx.kind() + ": negative size");
  std::vector<int64_t> is, js;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (lower ? j - i <= offset : j - i >= offset) is.push_back(i), js.push_back(j);
  int64_t n = (int64_t)is.size();
  is.insert(is.end(), js.begin(), js.end());
  ctx.set_output(0, constant_of(ctx, output_dtype(ctx, 0, T2O_DTYPE_INT64), {2, n}, {}, is));
}

}  // namespace

T2O_SYMBOLIC("aten::tril_indices", 9) { triangle_indices(ctx, true); }
T2O_SYMBOLIC("aten::triu_indices", 9) { triangle_indices(ctx, false); }
