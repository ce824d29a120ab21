// aten::pixel_shuffle -> DepthToSpace with mode=CRD (the attribute is new in opset 11; CRD is
// PyTorch's channel order). pixel_unshuffle keeps its opset-9 form (SpaceToDepth's order differs).
#include <torch2onnx/plugin.hpp>

#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::pixel_shuffle", 11) {
  Value x0 = ctx.input(0);
  int64_t r = ctx.input(1).to_int();
  int32_t rank = x0.rank();
  if (rank != 3 && rank != 4)
    unsupported("aten::pixel_shuffle: input rank " + std::to_string(rank) + " (only 3-D and 4-D inputs are exported)");
  if (r == 1) return ctx.set_output(0, x0);
  ctx.set_output(0, with_batch(ctx, x0, 2, [&](const Value& x) {
                   return ctx.op("DepthToSpace", {x}, {Attr::i("blocksize", r), Attr::s("mode", "CRD")});
                 }));
}
