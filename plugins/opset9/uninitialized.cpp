// prim::Uninitialized: what an early `return` (or a raising path) leaves where a branch did not set a
// value. PyTorch never reads it, but ONNX If wants every branch to give each output, of one type: a
// placeholder of the type the other branch gives (the core records the If's output type for it,
// run/unobserved_values.cpp), as torch.onnx's fixup of uninitialized If outputs makes. A list of
// tensors is an empty list: prim::If makes it an empty sequence of the other branch's element type.
#include <torch2onnx/plugin.hpp>

#include <vector>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("prim::Uninitialized", 9) {
  Value rec = ctx.output(0);
  switch (rec.kind()) {
    case T2O_KIND_LIST:
    case T2O_KIND_SEQUENCE: return ctx.set_output(0, ctx.make_list({}));
    case T2O_KIND_INT: return ctx.set_output(0, ctx.make_int(0));
    case T2O_KIND_FLOAT: return ctx.set_output(0, ctx.make_float(0));
    case T2O_KIND_BOOL: return ctx.set_output(0, ctx.make_bool(false));
    case T2O_KIND_TENSOR: break;
    default: unsupported("prim::Uninitialized: a value left unset on one path that is no tensor, list or number");
  }
  if (rec.dtype() == T2O_DTYPE_UNDEFINED || rec.rank() < 0)
    unsupported("prim::Uninitialized: the tensor left unset on one path has an element type or rank that no example "
                "run saw on the other path");
  Value zero = ctx.scalar(rec.dtype(), 0);
  if (rec.rank() == 0) return ctx.set_output(0, zero);
  // Zeros of the recorded shape (a dim that varies: 1, never read; ONNX If merges differing branch
  // shapes).
  std::vector<int64_t> dims = rec.dims();
  for (auto& d : dims) d = d < 0 ? 1 : d;
  ctx.set_output(0, typed(ctx, ctx.op("Expand", {zero, ctx.const_i64(dims)}), rec.dtype(), rec.rank(), dims));
}
