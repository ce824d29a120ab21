// aten::set_.source_Tensor (and aten::set.source_Tensor, its functional form after libtorch's mutation
// removal) -> Identity of `source`: self takes source's storage, shape and strides, so its value is
// source's. The overloads taking a Storage, an offset and strides, or none (an empty tensor) are refused.
#include <torch2onnx/plugin.hpp>

using namespace t2o;

// aten::set_.source_Tensor(Tensor(a!) self, Tensor source) -> Tensor(a!)
// aten::set_.source_Storage(Tensor(a!) self, Storage source) -> Tensor(a!)
// aten::set_.source_Storage_storage_offset(Tensor(a!) self, Storage source, SymInt storage_offset, SymInt[] size, SymInt[] stride=[]) -> Tensor(a!)
// aten::set_(Tensor(a!) self) -> Tensor(a!)
namespace {

void set_source(Ctx& ctx) {
  if (ctx.num_inputs() != 2 || ctx.input(1).kind() != T2O_KIND_TENSOR)
    unsupported(ctx.kind() + ": only set_(source: Tensor) converts (not a Storage, storage offset or the empty form)");
  Value self = ctx.input(0), source = ctx.input(1);
  if (self.dtype() != T2O_DTYPE_UNDEFINED && source.dtype() != T2O_DTYPE_UNDEFINED && self.dtype() != source.dtype())
    fail(ctx.kind() + ": 'source' has another element type than 'self'");
  ctx.set_output(0, ctx.op("Identity", {source}));
}

}  // namespace

T2O_SYMBOLIC("aten::set_", 9) { set_source(ctx); }
// aten::set.source_Tensor(Tensor self, Tensor source) -> Tensor
T2O_SYMBOLIC("aten::set", 9) { set_source(ctx); }
