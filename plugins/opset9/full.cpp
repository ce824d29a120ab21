// Filled tensors: aten::zeros/ones/full/empty, their _like forms (zeros_like, ones_like, full_like,
// empty_like), new_zeros/new_ones/new_full/new_empty, fill_/fill and zero_/zero (what remains of
// `torch.empty_like(x).fill_(v)` after mutation removal), scalar_tensor, tensor.
// The element type is the output's (from the example run: PyTorch's defaults and dtype arguments).
// A constant fill -> ConstantOfShape; a fill computed at run time -> Expand. The shape is a constant
// when every size is known, else built at run time (Shape of the model's tensors, run-time ints).
// empty* gives zeros: any content is valid for uninitialized memory.
#include <torch2onnx/plugin.hpp>

#include "common/constants.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// The shape of x as a 1-D int64 tensor: constant when static.
Value shape_of(Ctx& ctx, const Value& x) {
  if (x.has_static_shape()) return ctx.const_i64(x.dims());
  return typed(ctx, ctx.op("Shape", {x}), T2O_DTYPE_INT64, 1, {x.rank()});
}

// A tensor of `shape` (1-D int64) filled with `fill` (a Python number or a 0-d tensor), dtype dt.
void filled(Ctx& ctx, const Value& shape, const Value& fill, t2o_dtype dt) {
  bool number = is_scalar_kind(fill.kind()) && fill.is_const();
  if (number || (fill.kind() == T2O_KIND_TENSOR && fill.is_const() && fill.rank() == 0)) {
    t2o_dtype value_dt = dt == T2O_DTYPE_FLOAT16 || dt == T2O_DTYPE_BFLOAT16 ? T2O_DTYPE_FLOAT : dt;
    Value value;
    if (fill.kind() == T2O_KIND_INT || fill.kind() == T2O_KIND_BOOL ||
        (fill.kind() == T2O_KIND_TENSOR && !is_float_dtype(fill.dtype())))
      value = constant_of(ctx, value_dt, {1}, {}, {fill.to_int()});
    else
      value = constant_of(ctx, value_dt, {1}, {fill.to_float()});
    Value y = ctx.op("ConstantOfShape", {shape}, {Attr::tensor("value", value)});
    if (value_dt != dt) y = ctx.op("Cast", {y}, {Attr::i("to", dt)});
    return ctx.set_output(0, y);
  }
  if (fill.kind() == T2O_KIND_TENSOR && fill.rank() != 0)
    unsupported(ctx.kind() + ": fill value must be a number or a 0-d tensor (rank " + std::to_string(fill.rank()) + ")");
  ctx.set_output(0, ctx.op("Expand", {to_dtype(ctx, fill, dt), shape}));
}

t2o_dtype out_dtype(Ctx& ctx, t2o_dtype fallback) { return output_dtype(ctx, 0, fallback); }

// zeros/ones/empty(size, ...)
void sized(Ctx& ctx, double v) {
  Value size = ctx.input(0);
  filled(ctx, int_list_tensor(ctx, size), ctx.make_float(v), out_dtype(ctx, T2O_DTYPE_FLOAT));
}

// *_like(self, ...)
void like(Ctx& ctx, double v) {
  Value x = ctx.input(0);
  filled(ctx, shape_of(ctx, x), ctx.make_float(v), out_dtype(ctx, x.dtype()));
}

// new_*(self, size, ...)
void new_sized(Ctx& ctx, double v) {
  Value x = ctx.input(0);
  filled(ctx, int_list_tensor(ctx, ctx.input(1)), ctx.make_float(v), out_dtype(ctx, x.dtype()));
}

// The data argument of tensor/as_tensor as a tensor of the output's dtype.
void tensor_from_data(Ctx& ctx) {
  Value data = ctx.input(0);
  t2o_dtype dt = out_dtype(ctx, T2O_DTYPE_FLOAT);
  if (data.kind() != T2O_KIND_LIST) return ctx.set_output(0, to_dtype(ctx, data, dt));
  std::vector<Value> parts;
  for (const Value& item : data.items()) {
    if (!is_scalar_kind(item.kind())) unsupported(ctx.kind() + ": nested lists or non-number data");
    parts.push_back(unsqueeze(ctx, to_dtype(ctx, item, dt), {0}));
  }
  if (parts.empty()) unsupported(ctx.kind() + ": an empty list");
  ctx.set_output(0, parts.size() == 1 ? parts[0] : ctx.op("Concat", parts, {Attr::i("axis", 0)}));
}

}  // namespace

T2O_SYMBOLIC("aten::zeros", 9) { sized(ctx, 0.0); }
T2O_SYMBOLIC("aten::empty", 9) { sized(ctx, 0.0); }
// empty_permuted(size, physical_layout, *, dtype, ...) (PyTorch 2.1+): values unspecified as empty's;
// the memory layout does not show in values.
T2O_SYMBOLIC("aten::empty_permuted", 9) { sized(ctx, 0.0); }
T2O_SYMBOLIC("aten::ones", 9) { sized(ctx, 1.0); }
T2O_SYMBOLIC("aten::full", 9) {
  filled(ctx, int_list_tensor(ctx, ctx.input(0)), ctx.input(1), out_dtype(ctx, T2O_DTYPE_FLOAT));
}

T2O_SYMBOLIC("aten::zeros_like", 9) { like(ctx, 0.0); }
T2O_SYMBOLIC("aten::empty_like", 9) { like(ctx, 0.0); }
T2O_SYMBOLIC("aten::ones_like", 9) { like(ctx, 1.0); }
T2O_SYMBOLIC("aten::full_like", 9) {
  Value x = ctx.input(0);
  filled(ctx, shape_of(ctx, x), ctx.input(1), out_dtype(ctx, x.dtype()));
}

T2O_SYMBOLIC("aten::new_zeros", 9) { new_sized(ctx, 0.0); }
T2O_SYMBOLIC("aten::new_empty", 9) { new_sized(ctx, 0.0); }
T2O_SYMBOLIC("aten::new_ones", 9) { new_sized(ctx, 1.0); }
T2O_SYMBOLIC("aten::new_full", 9) {
  Value x = ctx.input(0);
  filled(ctx, int_list_tensor(ctx, ctx.input(1)), ctx.input(2), out_dtype(ctx, x.dtype()));
}

// fill_(self, value) / fill(self, value): self's shape and dtype, every element value.
T2O_SYMBOLIC("aten::fill_", 9) {
  Value x = ctx.input(0);
  filled(ctx, shape_of(ctx, x), ctx.input(1), x.dtype());
}
T2O_SYMBOLIC("aten::fill", 9) {
  Value x = ctx.input(0);
  filled(ctx, shape_of(ctx, x), ctx.input(1), x.dtype());
}
T2O_SYMBOLIC("aten::zero_", 9) { like(ctx, 0.0); }
T2O_SYMBOLIC("aten::zero", 9) { like(ctx, 0.0); }

// scalar_tensor(s, dtype, ...): a 0-d tensor.
T2O_SYMBOLIC("aten::scalar_tensor", 9) {
  Value s = ctx.input(0);
  ctx.set_output(0, to_dtype(ctx, s, out_dtype(ctx, T2O_DTYPE_FLOAT)));
}

// tensor(t, dtype, device, requires_grad) (scripted torch.tensor(...)): a number -> 0-d tensor; a
// flat list of numbers (constant or computed at run time) -> 1-D tensor. The dtype is the
// output's (PyTorch's inference from the data, or the dtype argument).
// as_tensor(data, dtype=None, device=None): the same, and a tensor is cast to the output's dtype.
T2O_SYMBOLIC("aten::tensor", 9) { tensor_from_data(ctx); }
T2O_SYMBOLIC("aten::as_tensor", 9) { tensor_from_data(ctx); }