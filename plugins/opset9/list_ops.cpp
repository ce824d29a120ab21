// The functional list ops the core puts where a list is mutated inside an if or a loop
// (core/src/prepare/passes.cpp, thread_list_mutation): each returns the new list. On a list known to the
// exporter (built in the graph) they build the new list of values; on a list built at run time
// (an ONNX sequence, opset 11+) -> SequenceInsert / SequenceAt + SequenceErase.
//
// t2o::list_append(t[] self, t el) -> t[]
// t2o::list_insert(t[] self, int idx, t el) -> t[]      (Python's insert: position clamped)
// t2o::list_pop(t[] self, int idx) -> (t[], t)
// t2o::list_set(t[] self, int idx, t el) -> t[]
#include <torch2onnx/plugin.hpp>

#include <algorithm>

#include "common/control_flow.hpp"
#include "common/forms.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

Value as_sequence(Ctx& ctx, const Value& seq) { return typed(ctx, ctx.make_dynamic_scalar(seq, T2O_KIND_SEQUENCE), ctx.input(0).dtype(), -1); }

// A constant position in a host list of n items, Python's way.
int64_t position(Ctx& ctx, const Value& index, int64_t n, bool clamp) {
  if (!index.is_const()) unsupported(ctx.kind() + ": a position computed at run time in a list the exporter builds");
  int64_t i = index.to_int();
  if (clamp) return i < 0 ? std::max<int64_t>(0, i + n) : std::min(i, n);
  if (i < 0) i += n;
  if (i < 0 || i >= n) fail(ctx.kind() + ": index " + std::to_string(index.to_int()) + " out of range for a list of " + std::to_string(n));
  return i;
}

// A list put into a list built at run time (List[List[Tensor]] grown in a loop): an ONNX sequence
// of sequences, which ONNX Runtime's Sequence* kernels do not take (the model would not load).
void refuse_nested(Ctx& ctx, const Value& el) {
  if (el.is_list() || el.is_sequence())
    unsupported(ctx.kind() + ": a list put into a list built at run time (a nested list, List[List[...]]): "
                "ONNX Runtime's sequences hold tensors only");
}

// seq[index] = el on a sequence: erase, then insert at the same position (a negative one counts from
// the shorter end: adjust).
void set_in_sequence(Ctx& ctx, const Value& seq, const Value& index, const Value& el) {
  Value n = ctx.op("SequenceLength", {seq});
  Value pos = to_dtype(ctx, index, T2O_DTYPE_INT64);
  Value zero = ctx.scalar_i64(0);
  pos = ctx.op("Where", {ctx.op("Less", {pos, zero}), ctx.op("Add", {pos, n}), pos});
  Value erased = ctx.op("SequenceErase", {seq, pos});
  ctx.set_output(0, typed(ctx, ctx.make_dynamic_scalar(ctx.op("SequenceInsert", {erased, el, pos}), T2O_KIND_SEQUENCE),
                          seq.dtype(), -1));
}

}  // namespace

T2O_SYMBOLIC("t2o::list_append", 9) {
  Value list = ctx.input(0), el = ctx.input(1);
  if (list.is_sequence()) refuse_nested(ctx, el);
  if (list.is_sequence()) return ctx.set_output(0, as_sequence(ctx, ctx.op("SequenceInsert", {list, el})));
  if (!list.is_list()) unsupported("t2o::list_append: not a list");
  auto items = list.items();
  items.push_back(el);
  ctx.set_output(0, ctx.make_list(items));
}

T2O_SYMBOLIC("t2o::list_insert", 9) {
  Value list = ctx.input(0), index = ctx.input(1), el = ctx.input(2);
  if (list.is_sequence()) refuse_nested(ctx, el);
  if (list.is_sequence()) {
    // ONNX accepts positions in [-n, n]; Python clamps any other into that range.
    Value n = ctx.op("SequenceLength", {list});
    Value pos = to_dtype(ctx, index, T2O_DTYPE_INT64);
    Value neg_n = ctx.op("Neg", {n});
    pos = ctx.op("Max", {ctx.op("Min", {pos, n}), neg_n});
    return ctx.set_output(0, as_sequence(ctx, ctx.op("SequenceInsert", {list, el, pos})));
  }
  if (!list.is_list()) unsupported("t2o::list_insert: not a list");
  auto items = list.items();
  items.insert(items.begin() + position(ctx, index, (int64_t)items.size(), true), el);
  ctx.set_output(0, ctx.make_list(items));
}

T2O_SYMBOLIC("t2o::list_pop", 9) {
  Value list = ctx.input(0), index = ctx.input(1);
  if (list.is_sequence()) {
    Value pos = to_dtype(ctx, index, T2O_DTYPE_INT64);
    Value el = typed(ctx, ctx.op("SequenceAt", {list, pos}), list.dtype());
    ctx.set_output(0, as_sequence(ctx, ctx.op("SequenceErase", {list, pos})));
    return ctx.set_output(1, el);
  }
  if (!list.is_list()) unsupported("t2o::list_pop: not a list");
  auto items = list.items();
  int64_t i = position(ctx, index, (int64_t)items.size(), false);
  Value el = items[(size_t)i];
  items.erase(items.begin() + i);
  ctx.set_output(0, ctx.make_list(items));
  ctx.set_output(1, el);
}

T2O_SYMBOLIC("t2o::list_set", 9) {
  Value list = ctx.input(0), index = ctx.input(1), el = ctx.input(2);
  if (list.is_sequence()) return set_in_sequence(ctx, list, index, el);
  if (!list.is_list()) unsupported("t2o::list_set: not a list");
  if (!index.is_const()) {
    // A position known only at run time: the list becomes a sequence (as torch.onnx's _set_item at 11).
    require(ctx, feature::kSequences, "a list set at a position computed at run time");
    t2o_dtype d = el.dtype();
    for (const Value& v : list.items())
      if (v.kind() != T2O_KIND_TENSOR || v.dtype() != d || d == T2O_DTYPE_UNDEFINED)
        unsupported("t2o::list_set: a list set at a position computed at run time must hold tensors of one element "
                    "type (it becomes an ONNX sequence)");
    return set_in_sequence(ctx, list_as_sequence(ctx, list, d, "a list set at a run-time position", 11), index, el);
  }
  auto items = list.items();
  items[(size_t)position(ctx, index, (int64_t)items.size(), false)] = el;
  ctx.set_output(0, ctx.make_list(items));
}
