// aten::cat(tensors, dim) -> Concat; aten::stack(tensors, dim) -> Unsqueeze each + Concat.
// Inputs of other dtypes are cast to the output's dtype (PyTorch promotes across the list).
// A list built at run time (an ONNX sequence, opset 11+) -> ConcatFromSequence (new_axis=1 for stack).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

std::vector<Value> tensors_of(Ctx& ctx, const Value& list, t2o_dtype dt) {
  if (list.kind() != T2O_KIND_LIST) unsupported(ctx.kind() + ": tensors must be a list built in the graph");
  std::vector<Value> out;
  for (const Value& t : list.items()) out.push_back(dt == T2O_DTYPE_UNDEFINED ? t : to_dtype(ctx, t, dt));
  if (out.empty()) fail(ctx.kind() + ": empty tensor list");
  return out;
}

bool from_sequence(Ctx& ctx, int64_t axis, bool new_axis) {
  Value list = ctx.input(0);
  if (!list.is_sequence()) return false;
  Value r = ctx.op("ConcatFromSequence", {list}, {Attr::i("axis", axis), Attr::i("new_axis", new_axis ? 1 : 0)});
  t2o_dtype want = output_dtype(ctx, 0, list.dtype());
  ctx.set_output(0, cast_to(ctx, typed(ctx, r, list.dtype()), want));
  return true;
}

}  // namespace

T2O_SYMBOLIC("aten::cat", 9) {
  Value out = ctx.output(0);
  int64_t dim = ctx.num_inputs() > 1 ? ctx.input(1).to_int() : 0;
  int64_t axis = normalize_axis(ctx, dim, out.rank());
  if (from_sequence(ctx, axis, false)) return;
  std::vector<Value> in = tensors_of(ctx, ctx.input(0), output_dtype(ctx, 0, T2O_DTYPE_UNDEFINED));
  if (in.size() == 1) return ctx.set_output(0, in[0]);
  ctx.set_output(0, ctx.op("Concat", in, {Attr::i("axis", axis)}));
}

T2O_SYMBOLIC("aten::stack", 9) {
  Value out = ctx.output(0);
  int64_t dim = ctx.num_inputs() > 1 ? ctx.input(1).to_int() : 0;
  int64_t axis = normalize_axis(ctx, dim, out.rank());  // output rank = input rank + 1
  if (from_sequence(ctx, axis, true)) return;
  std::vector<Value> in = tensors_of(ctx, ctx.input(0), output_dtype(ctx, 0, T2O_DTYPE_UNDEFINED));
  for (auto& t : in) t = unsqueeze(ctx, t, {axis});
  if (in.size() == 1) return ctx.set_output(0, in[0]);
  ctx.set_output(0, ctx.op("Concat", in, {Attr::i("axis", axis)}));
}
