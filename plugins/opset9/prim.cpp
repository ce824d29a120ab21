// Plumbing: prim::ListConstruct / ListUnpack / TupleConstruct / TupleUnpack / TupleIndex,
// prim::DictConstruct (string keys; a dict becomes the list of its values, in insertion order, as
// torch.onnx flattens dict outputs),
// aten::__getitem__ (lists, sequences), aten::list (a copy), aten::len, aten::size, aten::dim, aten::numel, prim::dtype,
// prim::NumToTensor, aten::Int / Float / Bool / ScalarImplicit.
// Lists and tuples are host-side value lists (items may be tensors or scalars, constant or not);
// static shape facts become constants, dynamic ones Shape + Gather run-time scalars.
#include <torch2onnx/plugin.hpp>

#include "common/control_flow.hpp"
#include "common/forms.hpp"
#include "common/shape_ops.hpp"
#include "common/values.hpp"

#include <algorithm>

using namespace t2o;
using namespace t2o::pack;

namespace {

void construct(Ctx& ctx) {
  std::vector<Value> items;
  for (int32_t i = 0; i < ctx.num_inputs(); ++i) items.push_back(ctx.input(i));
  ctx.set_output(0, ctx.make_list(items));
}

void unpack(Ctx& ctx) {
  Value list = ctx.input(0);
  if (list.is_sequence()) {
    // A list whose length follows a dynamic size (split of a dynamic axis), unpacked into as many
    // names as the example had: each one SequenceAt (ONNX Runtime fails where the length differs, as
    // PyTorch's unpacking does).
    for (int32_t i = 0; i < ctx.num_outputs(); ++i)
      ctx.set_output(i, typed(ctx, ctx.op("SequenceAt", {list, ctx.scalar_i64(i)}), list.dtype()));
    return;
  }
  if (list.kind() != T2O_KIND_LIST) unsupported(ctx.kind() + ": input is not a list/tuple known to the exporter");
  std::vector<Value> items = list.items();
  if ((int64_t)items.size() != ctx.num_outputs())
    fail(ctx.kind() + ": " + std::to_string(items.size()) + " items for " + std::to_string(ctx.num_outputs()) +
         " outputs");
  for (int32_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, items[(size_t)i]);
}

// {k0: v0, k1: v1, ...}: the values, in order. Only string keys: a dict is then never indexed as if
// it were a list (d["a"] is refused in get_item; an int key would read as a position).
void dict_construct(Ctx& ctx) {
  std::vector<Value> values;
  for (int32_t i = 0; i + 1 < ctx.num_inputs(); i += 2) {
    if (ctx.input(i).kind() != T2O_KIND_STRING)
      unsupported("prim::DictConstruct: only dicts with string keys are supported (they become outputs in order)");
    values.push_back(ctx.input(i + 1));
  }
  ctx.set_output(0, ctx.make_list(values));
}

// list[index] of a list the exporter built, at a position known only at run time (a loop's counter, an
// int read from a tensor): as torch.onnx does, SequenceAt of the list made a sequence (opset 11). Its
// items must share one element type (an ONNX sequence's); ints are gathered from one int64 tensor.
Value item_at(Ctx& ctx, const Value& list, const Value& index) {
  require(ctx, feature::kSequences, "a list indexed at a position computed at run time");
  std::vector<Value> items = list.items();
  if (items.empty()) fail(ctx.kind() + ": index into an empty list");
  Value pos = to_dtype(ctx, index, T2O_DTYPE_INT64);
  bool ints = std::all_of(items.begin(), items.end(), [](const Value& v) { return v.kind() == T2O_KIND_INT; });
  if (ints) {
    std::vector<Value> parts;
    for (const Value& v : items) parts.push_back(unsqueeze(ctx, as_i64(ctx, v), {0}));
    Value all = parts.size() == 1 ? parts[0] : ctx.op("Concat", parts, {Attr::i("axis", 0)});
    return ctx.make_dynamic_scalar(typed(ctx, ctx.op("Gather", {all, pos}, {Attr::i("axis", 0)}), T2O_DTYPE_INT64, 0),
                                   T2O_KIND_INT);
  }
  t2o_dtype d = items[0].dtype();
  for (const Value& v : items) {
    if (v.kind() != T2O_KIND_TENSOR)
      unsupported(ctx.kind() + ": a list of tensors and other values indexed at a position computed at run time");
    if (v.dtype() != d || d == T2O_DTYPE_UNDEFINED)
      unsupported(ctx.kind() + ": a list of tensors of different element types indexed at a position computed at "
                  "run time (an ONNX sequence holds one element type)");
  }
  Value seq = list_as_sequence(ctx, list, d, "a list indexed at a run-time position", 11);
  return typed(ctx, ctx.op("SequenceAt", {seq, pos}), d);
}

// list[index] with a constant index (negative counts from the end); a list built at run time (an
// ONNX sequence, opset 11+) -> SequenceAt, whose index may be computed at run time.
void get_item(Ctx& ctx) {
  Value list = ctx.input(0), index = ctx.input(1);
  if (list.is_sequence()) {
    Value at = ctx.op("SequenceAt", {list, to_dtype(ctx, index, T2O_DTYPE_INT64)});
    return ctx.set_output(0, typed(ctx, at, list.dtype()));
  }
  if (list.kind() != T2O_KIND_LIST) unsupported(ctx.kind() + ": indexing a value that is not a list");
  if (index.kind() == T2O_KIND_STRING)
    unsupported(ctx.kind() + ": reading a dict by key inside the model (dicts are supported as outputs)");
  if (!index.is_const()) return ctx.set_output(0, item_at(ctx, list, index));
  int64_t n = list.list_size(), i = index.to_int();
  if (i < 0) i += n;
  if (i < 0 || i >= n) fail(ctx.kind() + ": index " + std::to_string(index.to_int()) + " out of range for a list of " +
                            std::to_string(n));
  ctx.set_output(0, list.item(i));
}

// Dim `axis` of x: an int when static, a run-time int otherwise.
Value size_of(Ctx& ctx, const Value& x, int64_t axis) {
  int64_t d = x.dim((int32_t)axis);
  if (d >= 0) return ctx.make_int(d);
  return ctx.make_dynamic_scalar(dim_tensor(ctx, x, axis), T2O_KIND_INT);
}

// aten::size(self) -> int[]; aten::size.int(self, dim) -> int
void size(Ctx& ctx) {
  Value x = ctx.input(0);
  int64_t r = known_rank(ctx, x);
  if (ctx.num_inputs() > 1) {
    Value dim = ctx.input(1);
    if (!dim.is_const()) unsupported("aten::size: argument 'dim' computed at run time");
    return ctx.set_output(0, size_of(ctx, x, normalize_axis(ctx, dim.to_int(), r)));
  }
  std::vector<Value> items;
  for (int64_t i = 0; i < r; ++i) items.push_back(size_of(ctx, x, i));
  ctx.set_output(0, ctx.make_list(items));
}

// A tensor holding one element, as a run-time (or constant) scalar of `kind`.
void tensor_to_scalar(Ctx& ctx, t2o_kind kind) {
  Value v = ctx.input(0);
  if (v.is_const()) {
    if (kind == T2O_KIND_INT) {
      // int(float) truncates
      if (v.kind() == T2O_KIND_FLOAT || (v.kind() == T2O_KIND_TENSOR && is_float_dtype(v.dtype())))
        return ctx.set_output(0, ctx.make_int((int64_t)v.to_float()));
      return ctx.set_output(0, ctx.make_int(v.to_int()));
    }
    if (kind == T2O_KIND_FLOAT) return ctx.set_output(0, ctx.make_float(v.to_float()));
    return ctx.set_output(0, ctx.make_bool(v.to_float() != 0.0));
  }
  Value t = ctx.as_onnx(v);
  if (v.kind() == T2O_KIND_TENSOR && v.rank() != 0) t = ctx.op("Reshape", {t, ctx.const_i64({})});
  t2o_dtype dt = kind == T2O_KIND_INT ? T2O_DTYPE_INT64 : kind == T2O_KIND_BOOL ? T2O_DTYPE_BOOL : T2O_DTYPE_FLOAT;
  if (kind == T2O_KIND_FLOAT && is_float_dtype(v.dtype())) dt = v.dtype();
  ctx.set_output(0, ctx.make_dynamic_scalar(cast_to(ctx, t, dt), kind));
}

}  // namespace

T2O_SYMBOLIC("prim::ListConstruct", 9) { construct(ctx); }
// Tuples pass an ONNX optional through as an item (ABI 1.3 flag).
T2O_OPTIONALS_SYMBOLIC("prim::TupleConstruct", 9) { construct(ctx); }
T2O_SYMBOLIC("prim::DictConstruct", 9) { dict_construct(ctx); }
T2O_SYMBOLIC("prim::ListUnpack", 9) { unpack(ctx); }
T2O_OPTIONALS_SYMBOLIC("prim::TupleUnpack", 9) { unpack(ctx); }
T2O_OPTIONALS_SYMBOLIC("prim::TupleIndex", 9) { get_item(ctx); }
T2O_SYMBOLIC("aten::__getitem__", 9) { get_item(ctx); }

T2O_SYMBOLIC("aten::len", 9) {
  Value v = ctx.input(0);
  if (v.kind() == T2O_KIND_LIST) return ctx.set_output(0, ctx.make_int(v.list_size()));
  if (v.is_sequence())
    return ctx.set_output(0, ctx.make_dynamic_scalar(typed(ctx, ctx.op("SequenceLength", {v}), T2O_DTYPE_INT64, 0),
                                                     T2O_KIND_INT));
  if (v.kind() == T2O_KIND_TENSOR && v.rank() > 0) return ctx.set_output(0, size_of(ctx, v, 0));
  unsupported("aten::len: input is neither a list nor a tensor of rank >= 1");
}

T2O_SYMBOLIC("aten::size", 9) { size(ctx); }

T2O_SYMBOLIC("aten::dim", 9) {
  int64_t r = known_rank(ctx, ctx.input(0));
  ctx.set_output(0, ctx.make_int(r));
}

T2O_SYMBOLIC("aten::numel", 9) {
  Value x = ctx.input(0);
  if (x.has_static_shape()) {
    int64_t n = 1;
    for (auto d : x.dims()) n *= d;
    return ctx.set_output(0, ctx.make_int(n));
  }
  Value shape = ctx.op("Shape", {x});
  ctx.set_output(0, ctx.make_dynamic_scalar(reduce(ctx, "ReduceProd", shape, {}, false), T2O_KIND_INT));
}

// Bytes per element of an ONNX element type (0: unknown).
static int64_t element_bytes(t2o_dtype d) {
  switch (d) {
    case T2O_DTYPE_BOOL: case T2O_DTYPE_UINT8: case T2O_DTYPE_INT8: return 1;
    case T2O_DTYPE_INT16: case T2O_DTYPE_UINT16: case T2O_DTYPE_FLOAT16: case T2O_DTYPE_BFLOAT16: return 2;
    case T2O_DTYPE_INT32: case T2O_DTYPE_FLOAT: return 4;
    case T2O_DTYPE_INT64: case T2O_DTYPE_DOUBLE: return 8;
    default: return 0;
  }
}

// prim::itemsize(Tensor a) -> int, prim::nbytes(Tensor a) -> int (PyTorch 2.1+: x.itemsize,
// x.nbytes in scripted code): the element size, and numel times it.
T2O_SYMBOLIC("prim::itemsize", 9) {
  const int64_t b = element_bytes(ctx.input(0).dtype());
  if (b == 0) unsupported("prim::itemsize: an element type of unknown size");
  ctx.set_output(0, ctx.make_int(b));
}

T2O_SYMBOLIC("prim::nbytes", 9) {
  Value x = ctx.input(0);
  const int64_t b = element_bytes(x.dtype());
  if (b == 0) unsupported("prim::nbytes: an element type of unknown size");
  if (x.has_static_shape()) {
    int64_t n = b;
    for (auto d : x.dims()) n *= d;
    return ctx.set_output(0, ctx.make_int(n));
  }
  Value n = reduce(ctx, "ReduceProd", ctx.op("Shape", {x}), {}, false);
  ctx.set_output(0, ctx.make_dynamic_scalar(ctx.op("Mul", {n, ctx.scalar_i64(b)}), T2O_KIND_INT));
}

T2O_SYMBOLIC("prim::dtype", 9) {
  t2o_dtype d = ctx.input(0).dtype();
  int64_t st = scalar_type_from_dtype(d);
  if (st < 0) unsupported("prim::dtype: element type " + std::to_string((int)d) + " unknown");
  ctx.set_output(0, ctx.make_int(st));
}

// prim::NumToTensor(Scalar) -> 0-d tensor (int -> int64, float -> the output's dtype, double in
// TorchScript).
T2O_SYMBOLIC("prim::NumToTensor", 9) {
  Value v = ctx.input(0);
  if (v.kind() == T2O_KIND_TENSOR) return ctx.set_output(0, v);
  t2o_dtype dt = output_dtype(ctx, 0, scalar_dtype(v));
  ctx.set_output(0, to_dtype(ctx, v, dt));
}

T2O_SYMBOLIC("aten::Int", 9) { tensor_to_scalar(ctx, T2O_KIND_INT); }
T2O_SYMBOLIC("aten::Float", 9) { tensor_to_scalar(ctx, T2O_KIND_FLOAT); }
T2O_SYMBOLIC("aten::Bool", 9) { tensor_to_scalar(ctx, T2O_KIND_BOOL); }
T2O_SYMBOLIC("aten::ScalarImplicit", 9) {
  t2o_dtype d = ctx.input(0).dtype();
  tensor_to_scalar(ctx, is_float_dtype(d) ? T2O_KIND_FLOAT : d == T2O_DTYPE_BOOL ? T2O_KIND_BOOL : T2O_KIND_INT);
}

// prim::device(Tensor) -> Device: ONNX has one device; consumers (zeros(..., device=...)) ignore it.
T2O_SYMBOLIC("prim::device", 9) { ctx.set_output(0, ctx.make_none()); }

// aten::list(t[] l) -> t[]: a copy of the list; host lists are values, so the list itself.
T2O_SYMBOLIC("aten::list", 9) {
  Value l = ctx.input(0);
  if (l.kind() != T2O_KIND_LIST && !l.is_sequence()) unsupported("aten::list: argument 'l' is not a list");
  ctx.set_output(0, l);
}

// prim::unchecked_cast(x): a type refinement (Optional[T] -> T) with no run-time effect; of an ONNX
// optional (None on another path, opset 15+), its tensor: OptionalGetElement, as torch.onnx.
T2O_OPTIONALS_SYMBOLIC("prim::unchecked_cast", 9) {
  Value x = ctx.input(0);
  if (!x.is_optional()) return ctx.set_output(0, x);
  Value t = ctx.op("OptionalGetElement", {x});
  ctx.set_output(0, typed(ctx, t, x.dtype(), x.rank(), x.rank() > 0 ? x.dims() : std::vector<int64_t>{}));
}
