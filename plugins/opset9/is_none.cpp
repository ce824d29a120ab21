// aten::__is__ / aten::__isnot__ (`v is None`, `v is not None`) left after folding: what an export can
// answer. None against None, or against a value the exporter holds (a tensor, a number, a list), is
// known; an ONNX optional (an Optional[Tensor] None on some run-time path, opset 15+) against None is
// OptionalHasElement, as torch.onnx. Object identity of two values that are not None has no ONNX form.
//
// aten::__is__(t1 self, t2 obj) -> bool        aten::__isnot__(t1 self, t2 obj) -> bool
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void is_none(Ctx& ctx, bool negated) {
  Value a = ctx.input(0), b = ctx.input(1);
  if (!a.is_none() && b.is_none()) std::swap(a, b);
  if (!a.is_none())
    unsupported(ctx.kind() + ": neither operand is None; whether two values are the same object is not known at "
                "export time");
  if (b.is_none()) return ctx.set_output(0, ctx.make_bool(!negated));
  switch (b.kind()) {  // a value the exporter holds, never None
    case T2O_KIND_TENSOR: case T2O_KIND_INT: case T2O_KIND_FLOAT: case T2O_KIND_BOOL: case T2O_KIND_STRING:
    case T2O_KIND_LIST: case T2O_KIND_SEQUENCE: case T2O_KIND_DEVICE:
      return ctx.set_output(0, ctx.make_bool(negated));
    case T2O_KIND_OPTIONAL: break;
    default: unsupported(ctx.kind() + ": whether this value is None is not known at export time");
  }
  Value has = typed(ctx, ctx.op("OptionalHasElement", {b}), T2O_DTYPE_BOOL, 0);
  Value result = negated ? has : typed(ctx, ctx.op("Not", {has}), T2O_DTYPE_BOOL, 0);
  ctx.set_output(0, ctx.make_dynamic_scalar(result, T2O_KIND_BOOL));
}

}  // namespace

T2O_OPTIONALS_SYMBOLIC("aten::__is__", 9) { is_none(ctx, false); }
T2O_OPTIONALS_SYMBOLIC("aten::__isnot__", 9) { is_none(ctx, true); }
