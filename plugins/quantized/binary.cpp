// quantized::add / add_relu / mul / mul_relu: Add / Mul of the dequantized inputs (+ Relu), then
// QuantizeLinear/DequantizeLinear with the op's scale / zero_point.
// quantized::cat / cat_relu: Concat (+ Relu), then the same pair (or none when scale is None: the
// inputs' common grid is kept, as PyTorch does).
#include <torch2onnx/plugin.hpp>

#include "common/util.hpp"
#include "common/forms.hpp"
#include "qdq.hpp"

using namespace t2o;
using namespace t2o::quant;

namespace {

// quantized::add(Tensor qa, Tensor qb, float scale, int zero_point) -> Tensor qc
void binary(Ctx& ctx, const char* op_type, bool relu) {
  if (!ctx.input(1).is_tensor())
    unsupported(ctx.kind() + ": qb is a number (the scalar overload's output grid is chosen at run time)");
  Value y = ctx.op(op_type, {ctx.input(0), ctx.input(1)});
  if (relu) y = ctx.op("Relu", {y});
  ctx.set_output(0, requantize(ctx, y, 2, 3));
}

// quantized::cat(Tensor[] qx, int dim, float? scale, int? zero_point) -> Tensor
void cat(Ctx& ctx, bool relu) {
  Value list = ctx.input(0);
  auto items = list.items();
  if (items.empty()) unsupported(ctx.kind() + ": qx is an empty list");
  int64_t dim = ctx.input(1).to_int();
  const int32_t rank = items[0].rank();
  if (dim < 0) {
    dim += pack::known_rank(ctx, items[0], ("dim=" + std::to_string(dim) + " on inputs").c_str());
  }
  Value y = items.size() == 1 ? items[0] : ctx.op("Concat", items, {Attr::i("axis", dim)});
  if (relu) y = ctx.op("Relu", {y});
  if (ctx.input(2).is_none() || ctx.input(3).is_none()) {
    ctx.set_output(0, y);
    return;
  }
  ctx.set_output(0, requantize(ctx, y, 2, 3));
}

}  // namespace

T2O_SYMBOLIC("quantized::add", 10) { binary(ctx, "Add", false); }
T2O_SYMBOLIC("quantized::add_relu", 10) { binary(ctx, "Add", true); }
T2O_SYMBOLIC("quantized::mul", 10) { binary(ctx, "Mul", false); }
T2O_SYMBOLIC("quantized::mul_relu", 10) { binary(ctx, "Mul", true); }
T2O_SYMBOLIC("quantized::cat", 10) { cat(ctx, false); }
T2O_SYMBOLIC("quantized::cat_relu", 10) { cat(ctx, true); }
